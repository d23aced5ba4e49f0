/**
 * What `svc users` does to the users the service keeps (issue 34), over plain values: the CLI
 * parses and prints, this decides. Every password set here meets `passwordRules` and is stored
 * only as a scrypt hash; a username the config's `users` hold is refused (it would stop
 * start-up). Disabling or removing a user ends their sign-in sessions and revokes what was
 * issued to them (refresh tokens, reference access tokens, unredeemed codes): rows the store
 * keeps by subject id, so one indexed delete per kind.
 */
import { randomBytes } from 'node:crypto';
import type { User } from '../config/schema.js';
import { passwordProblem, type PasswordRules } from '../config/password-rules.js';
import type { ScryptCost } from '../config/password-format.js';
import type { Clock } from '../sdk/contracts.js';
import { hashPassword } from '../oauth/password-hash.js';
import { isDuplicateKeyError, type Store } from '../store/store.js';
import type { StoredUser, UserClaims, UserRecordStore } from '../store/user-records.js';
import { configUserNamed } from './built-in-users.js';

/** A refusal the operator reads as it is: what is wrong and what to do. */
export class UserAdminError extends Error {
  override readonly name = 'UserAdminError';
}

/**
 * Back-Channel Logout 1.0 for the sessions a disable or removal ends (`BackChannelLogout` of
 * `authorize/`, which this layer sits below): who, which session, which clients got codes in it.
 */
export interface EndedSessionNotifier {
  notify(session: { readonly subject: string; readonly sid: string; readonly clients: readonly string[] }): Promise<number>;
}

/** A stored sign-in session (`sessions/sign-in-sessions.ts`), as far as a logout tells it. */
function endedSession(data: string): { subject: string; sid: string; clients: string[] } | undefined {
  const session = JSON.parse(data) as { subject?: unknown; sid?: unknown; clients?: unknown };
  const { subject, sid, clients } = session;
  if (typeof subject !== 'string' || typeof sid !== 'string' || !Array.isArray(clients)) return undefined;
  return { subject, sid, clients: clients.filter((c): c is string => typeof c === 'string') };
}

/** What a user holds that a disabled or removed user must not keep using. */
export const grantsOfAUser = ['sign_in_session', 'refresh_token', 'refresh_family', 'reference_token', 'authorization_code'] as const;

export interface NewUserInput {
  readonly username: string;
  /** Absent: a user who cannot sign in with a password (set one later with `setPassword`). */
  readonly password?: string;
  readonly email?: string;
  readonly emailVerified?: boolean;
  readonly claims?: UserClaims;
  readonly disabled?: boolean;
}

export interface UserEdit {
  readonly username?: string;
  readonly email?: string | null;
  readonly emailVerified?: boolean;
  readonly claims?: UserClaims;
}

export interface UserAdmin {
  /** Throws when `add` would refuse the username; lets the CLI ask for a password only for a name it can add. */
  checkAvailable(username: string): Promise<void>;
  add(input: NewUserInput): Promise<StoredUser>;
  list(): Promise<StoredUser[]>;
  /** By username (without regard to case), else by subject id. */
  show(who: string): Promise<StoredUser>;
  update(who: string, edit: UserEdit): Promise<StoredUser>;
  /** Returns how many sessions and grants were ended (0 when enabling). */
  setDisabled(who: string, disabled: boolean): Promise<{ user: StoredUser; ended: number }>;
  remove(who: string): Promise<{ user: StoredUser; ended: number }>;
  setPassword(who: string, password: string): Promise<StoredUser>;
  unlink(who: string, provider: string, subject?: string): Promise<number>;
}

/** 128 random bits, base64url: a subject nobody can guess or will draw again. */
export const newSubjectId = (): string => randomBytes(16).toString('base64url');

/** A generated password: 20 characters of base64url, 120 bits. */
export const generatePassword = (): string => randomBytes(15).toString('base64url');

// Printable, no control characters or surrounding blanks: it is typed into a form and shown in lists.
const usernamePattern = /^[^\p{C}\s](?:[^\p{C}]{0,254}[^\p{C}\s])?$/u;
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function createUserAdmin(deps: {
  records: UserRecordStore;
  /** For ending sessions and revoking tokens by subject. */
  /** `factors`: the user's second factors go with them (issue 35). */
  store: Pick<Store, 'removeAll' | 'findAll'> & Partial<Pick<Store, 'factors'>>;
  /**
   * Back-Channel Logout 1.0 (issue 37): a session the operator ends is told to every client that
   * got a code in it, through the store's queue (a running service's worker posts).
   */
  backChannelLogout?: EndedSessionNotifier | undefined;
  configUsers: readonly User[];
  rules: PasswordRules;
  clock: Clock;
  cost?: ScryptCost;
}): UserAdmin {
  const { records, clock } = deps;

  function checkUsername(username: string): void {
    if (!usernamePattern.test(username)) {
      throw new UserAdminError(`"${username}" is not a usable username: 1 to 256 printable characters, no leading or trailing blanks.`);
    }
    const held = configUserNamed(deps.configUsers, username);
    if (held) throw new UserAdminError(`the config file already has a user "${held.username}": a username two places define stops start-up. Remove it there first.`);
  }

  function checkEmail(email: string | null | undefined): void {
    if (typeof email === 'string' && !emailPattern.test(email)) throw new UserAdminError(`"${email}" is not an e-mail address.`);
  }

  async function hashed(password: string, username: string): Promise<string> {
    const problem = passwordProblem(password, deps.rules, username);
    if (problem) throw new UserAdminError(`${problem} (passwordRules in the config).`);
    return hashPassword(password, deps.cost);
  }

  async function find(who: string): Promise<StoredUser> {
    const user = (await records.getByUsername(who)) ?? (await records.getBySubject(who));
    if (!user) throw new UserAdminError(`no user "${who}" in the database (svc users list shows them).`);
    return user;
  }

  async function reread(subjectId: string): Promise<StoredUser> {
    const user = await records.getBySubject(subjectId);
    if (!user) throw new UserAdminError(`user ${subjectId} was removed meanwhile.`);
    return user;
  }

  async function endEverything(subjectId: string): Promise<number> {
    // Read before the delete below, which is what ends them: their clients are told afterwards.
    const sessions = deps.backChannelLogout
      ? (await deps.store.findAll({ subjectId, type: 'sign_in_session' }, clock.now())).flatMap((r) => endedSession(r.data) ?? [])
      : [];
    let ended = 0;
    for (const type of grantsOfAUser) ended += await deps.store.removeAll({ subjectId, type });
    for (const session of sessions) await deps.backChannelLogout!.notify(session);
    return ended;
  }

  return {
    async checkAvailable(username) {
      checkUsername(username);
      if (await records.getByUsername(username)) throw new UserAdminError(`a user "${username}" is already in the database (usernames are compared without regard to case).`);
    },
    async add(input) {
      checkUsername(input.username);
      checkEmail(input.email);
      const passwordHash = input.password === undefined ? undefined : await hashed(input.password, input.username);
      const user = {
        subjectId: newSubjectId(), username: input.username, email: input.email, emailVerified: input.emailVerified ?? false,
        claims: input.claims ?? {}, disabled: input.disabled ?? false, passwordHash, createdAt: clock.now(),
      };
      try {
        await records.add(user);
      } catch (err) {
        if (isDuplicateKeyError(err)) throw new UserAdminError(`a user "${input.username}" is already in the database (usernames are compared without regard to case).`);
        throw err;
      }
      return reread(user.subjectId);
    },
    list: () => records.list(),
    show: find,
    async update(who, edit) {
      const user = await find(who);
      if (edit.username !== undefined && edit.username !== user.username) checkUsername(edit.username);
      checkEmail(edit.email);
      try {
        await records.update(user.subjectId, edit, clock.now());
      } catch (err) {
        if (isDuplicateKeyError(err)) throw new UserAdminError(`a user "${edit.username}" is already in the database (usernames are compared without regard to case).`);
        throw err;
      }
      return reread(user.subjectId);
    },
    async setDisabled(who, disabled) {
      const user = await find(who);
      await records.update(user.subjectId, { disabled }, clock.now());
      // After the flag: a sign-in racing this one cannot start a session the delete misses and keep it.
      const ended = disabled ? await endEverything(user.subjectId) : 0;
      return { user: await reread(user.subjectId), ended };
    },
    async remove(who) {
      const user = await find(who);
      await records.remove(user.subjectId);
      await deps.store.factors?.remove(user.subjectId);
      return { user, ended: await endEverything(user.subjectId) };
    },
    async setPassword(who, password) {
      const user = await find(who);
      await records.update(user.subjectId, { passwordHash: await hashed(password, user.username) }, clock.now());
      return reread(user.subjectId);
    },
    async unlink(who, provider, subject) {
      const user = await find(who);
      const removed = await records.unlink(user.subjectId, provider, subject);
      if (removed === 0) throw new UserAdminError(`user "${user.username}" has no ${provider} identity${subject === undefined ? '' : ` "${subject}"`} linked.`);
      return removed;
    },
  };
}
