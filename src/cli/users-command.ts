/**
 * `svc users ...` (issue 34): the users the service keeps in the database the config's `store`
 * names, managed while the service runs (each sign-in reads the database, so a change counts at
 * once on every node). A password is read from a prompt that does not echo, or from standard
 * input, never from the command line, where the shell history and the process list would keep
 * it; `--generate-password` makes one and prints it this once. Nothing prints a stored hash.
 */
import { loadConfig } from '../config/load.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { Store } from '../store/store.js';
import type { StoredUser, UserClaims } from '../store/user-records.js';
import { createBackChannelLogout } from '../authorize/back-channel-logout.js';
import type { Logger } from '../sdk/contracts.js';
import { createUserAdmin, generatePassword, UserAdminError, type UserAdmin, type UserEdit } from '../users/user-admin.js';
import { adminServer } from './admin-api-client.js';
import { readSecret } from './read-secret.js';
import { remoteUserAdmin, type UserOperations } from './remote-user-admin.js';
import { table } from './table.js';
import { CliError } from './user-facing-error.js';
import { openMigratedStore, refuseMemoryStore } from './database-store.js';

export type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

const out = (text: string): void => void process.stdout.write(text);
// The command's own output says what happened; the queue's debug line is for the service's log.
const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silentLogger };
const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());
const str = (v: Values[string]): string | undefined => (typeof v === 'string' ? v : undefined);
const list = (v: Values[string]): string[] => (Array.isArray(v) ? (v as unknown[]).map(String) : typeof v === 'string' ? [v] : []);

export const usersUsage = 'use one of: add, list, show, update, disable, enable, remove, set-password, unlink, factors, remove-factor (svc users --help)';
const actions = ['add', 'list', 'show', 'update', 'disable', 'enable', 'remove', 'set-password', 'unlink', 'factors', 'remove-factor'] as const;
type Action = (typeof actions)[number];
/** The positionals each action takes after its name. */
const arity: Record<Action, [min: number, max: number, what: string]> = {
  add: [1, 1, '<username>'], list: [0, 0, ''], show: [1, 1, '<user>'], update: [1, 1, '<user>'], disable: [1, 1, '<user>'], enable: [1, 1, '<user>'],
  remove: [1, 1, '<user>'], 'set-password': [1, 1, '<user>'], unlink: [2, 3, '<user> <provider> [<upstream subject>]'],
  factors: [1, 1, '<user>'], 'remove-factor': [2, 2, '<user> totp|recovery|passkey|all'],
};

/** What `show`, `list --json` and every `--json` answer give: never the hash, only whether there is one. */
export function userView(u: StoredUser) {
  return {
    subjectId: u.subjectId,
    username: u.username,
    email: u.email ?? null,
    emailVerified: u.emailVerified,
    claims: u.claims,
    disabled: u.disabled,
    hasPassword: u.passwordHash !== undefined,
    created: iso(u.createdAt),
    updated: iso(u.updatedAt),
    lastSignIn: iso(u.lastSignInAt),
    upstreamIdentities: u.upstreamIdentities.map((i) => ({ provider: i.provider, issuer: i.issuer, subject: i.subject, linked: iso(i.linkedAt) })),
  };
}

/** `--email-verified true|false`. */
function yesNo(value: string | undefined, option: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new CliError(`${option} takes true or false, got "${value}".`);
}

/** `--claim name=value` (a number or true/false is stored as one) and `--claims '<json object>'`. */
function claimsOf(values: Values, base: UserClaims | undefined): UserClaims | undefined {
  const json = str(values.claims);
  const pairs = list(values.claim);
  const removed = list(values['remove-claim']);
  if (json === undefined && pairs.length === 0 && removed.length === 0) return undefined;
  let claims: Record<string, string | number | boolean> = { ...base };
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => !['string', 'number', 'boolean'].includes(typeof v))) {
      throw new CliError('--claims takes a JSON object of claim name to a string, number or boolean, e.g. \'{"name": "Alice Smith"}\'.');
    }
    claims = { ...(parsed as Record<string, string | number | boolean>) };
  }
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new CliError(`--claim takes name=value, e.g. --claim name="Alice Smith"; got "${pair}".`);
    const raw = pair.slice(at + 1);
    claims[pair.slice(0, at)] = raw === 'true' ? true : raw === 'false' ? false : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  }
  for (const name of removed) delete claims[name];
  for (const reserved of ['sub', 'email', 'email_verified']) {
    if (reserved in claims) throw new CliError(`the claim "${reserved}" is not set by --claim: ${reserved === 'sub' ? 'it is the subject id' : 'use --email and --email-verified'}.`);
  }
  return claims;
}

/** The password to set: generated (printed once by the caller), or typed / piped. */
async function passwordFrom(values: Values, input: NodeJS.ReadStream = process.stdin): Promise<{ password: string; generated: boolean }> {
  if (values['generate-password'] === true) return { password: generatePassword(), generated: true };
  const password = await readSecret('password', input);
  if (input.isTTY) {
    const again = await readSecret('password (again)', input);
    if (again !== password) throw new CliError('the two passwords differ; nothing was changed.');
  }
  return { password, generated: false };
}

function printGenerated(username: string, password: string, json: boolean, extra: Record<string, unknown> = {}): void {
  if (json) return out(`${JSON.stringify({ ...extra, username, password })}\n`);
  out(`password: ${password}\n`);
  process.stderr.write('svc: the password is shown this once; only its scrypt hash is stored.\n');
}

async function open(configPath: string | undefined): Promise<{ config: ResolvedConfig; store: Store; admin: UserAdmin }> {
  const { config } = await loadConfig({ path: configPath });
  refuseMemoryStore(config);
  const store = await openMigratedStore(config);
  const clock = { now: () => Date.now() };
  // Issue 37: the clients of the sessions a disable ends are queued in the store; the running service posts.
  const backChannelLogout = createBackChannelLogout({ deliveries: store.logoutDeliveries, clock, logger: silentLogger });
  const admin = createUserAdmin({ records: store.users, store, configUsers: config.users, rules: config.passwordRules, clock, backChannelLogout });
  return { config, store, admin };
}

export async function usersCommand(values: Values, positionals: readonly string[]): Promise<number> {
  const [name, ...args] = positionals;
  const json = values.json === true;
  if (name === undefined) throw new CliError(usersUsage);
  if (!(actions as readonly string[]).includes(name)) throw new CliError(`unknown action "${name}": ${usersUsage}`);
  const action = name as Action;
  const [min, max, what] = arity[action];
  if (args.length < min) throw new CliError(`svc users ${action} needs ${what}.`);
  if (args.length > max) {
    const passwordHint = ['add', 'set-password'].includes(action)
      ? ': a password is never taken from the command line (the shell history would keep it); type it at the prompt, pipe it on standard input, or use --generate-password'
      : '';
    throw new CliError(`svc users ${action} takes ${what || 'no arguments'}${passwordHint}.`);
  }
  if (values['generate-password'] === true && values['no-password'] === true) throw new CliError('--generate-password and --no-password exclude each other.');

  const server = str(values.server);
  if (server !== undefined) {
    // Issue 39: the same actions through a running service's admin API.
    if (action === 'unlink' || action === 'factors' || action === 'remove-factor') throw new CliError(`svc --server does not run users ${action}; run it with --config on the database.`);
    try {
      return await run(remoteUserAdmin(adminServer(server)), action, args);
    } catch (err) {
      if (err instanceof UserAdminError) throw new CliError(err.message);
      throw err;
    }
  }
  const { store, admin } = await open(str(values.config));
  try {
    if (action === 'factors' || action === 'remove-factor') return await factorsAction(store, admin, action, args, json);
    return await run(admin, action, args);
  } catch (err) {
    if (err instanceof UserAdminError) throw new CliError(err.message);
    throw err;
  } finally {
    await store.close();
  }

  async function run(admin: UserOperations & Partial<Pick<UserAdmin, 'unlink'>>, action: Exclude<Action, 'factors' | 'remove-factor'>, [who, provider, subject]: string[]): Promise<number> {
    switch (action) {
      case 'add': {
        const claims = claimsOf(values, undefined);
        // The password is asked for before anything is written (a cancelled prompt adds nobody), and only for a name that can be added.
        await admin.checkAvailable(who!);
        const secret = values['no-password'] === true ? undefined : await passwordFrom(values);
        const user = await admin.add({
          username: who!, password: secret?.password, email: str(values.email), emailVerified: yesNo(str(values['email-verified']), '--email-verified'),
          claims, disabled: values.disabled === true,
        });
        if (secret?.generated) printGenerated(user.username, secret.password, json, { subjectId: user.subjectId });
        else if (json) out(`${JSON.stringify(userView(user))}\n`);
        else out(`user "${user.username}" added (subject ${user.subjectId}).\n`);
        return 0;
      }
      case 'list': {
        const users = await admin.list();
        if (json) out(`${JSON.stringify(users.map(userView))}\n`);
        else if (users.length === 0) out('no users in the database\n');
        else {
          out(table([
            ['username', 'subject', 'email', 'state', 'last sign-in'],
            ...users.map((u) => [u.username, u.subjectId, u.email === undefined ? '-' : `${u.email}${u.emailVerified ? '' : ' (unverified)'}`, u.disabled ? 'disabled' : 'enabled', iso(u.lastSignInAt) ?? '-']),
          ]));
        }
        return 0;
      }
      case 'show': {
        const view = userView(await admin.show(who!));
        if (json) out(`${JSON.stringify(view)}\n`);
        else out(Object.entries(view).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join('\n') + '\n');
        return 0;
      }
      case 'update': {
        const current = await admin.show(who!);
        const email = str(values.email);
        const edit: UserEdit = {
          ...(str(values.username) === undefined ? {} : { username: str(values.username)! }),
          // `--email ""` removes the address.
          ...(email === undefined ? {} : { email: email === '' ? null : email }),
          ...(values['email-verified'] === undefined ? {} : { emailVerified: yesNo(str(values['email-verified']), '--email-verified')! }),
          ...(claimsOf(values, current.claims) === undefined ? {} : { claims: claimsOf(values, current.claims)! }),
        };
        if (Object.keys(edit).length === 0) throw new CliError(`svc users update ${who}: name what to change (--username, --email, --email-verified, --claim, --remove-claim, --claims).`);
        const user = await admin.update(current.subjectId, edit);
        out(json ? `${JSON.stringify(userView(user))}\n` : `user "${user.username}" updated.\n`);
        return 0;
      }
      case 'disable':
      case 'enable': {
        const { user, ended } = await admin.setDisabled(who!, action === 'disable');
        if (json) out(`${JSON.stringify({ ...userView(user), ended })}\n`);
        else out(`user "${user.username}" ${action}d${action === 'disable' ? `; ${ended} session${ended === 1 ? '' : 's'} and token${ended === 1 ? '' : 's'} ended` : ''}.\n`);
        return 0;
      }
      case 'remove': {
        const { user, ended } = await admin.remove(who!);
        out(json ? `${JSON.stringify({ subjectId: user.subjectId, username: user.username, removed: true, ended })}\n` : `user "${user.username}" removed; ${ended} session${ended === 1 ? '' : 's'} and token${ended === 1 ? '' : 's'} ended.\n`);
        return 0;
      }
      case 'set-password': {
        const current = await admin.show(who!);
        const secret = await passwordFrom(values);
        const user = await admin.setPassword(current.subjectId, secret.password);
        if (secret.generated) printGenerated(user.username, secret.password, json, { subjectId: user.subjectId });
        else out(json ? `${JSON.stringify({ subjectId: user.subjectId, username: user.username, passwordSet: true })}\n` : `password of "${user.username}" set.\n`);
        return 0;
      }
      case 'unlink': {
        const removed = await admin.unlink!(who!, provider!, subject);
        out(json ? `${JSON.stringify({ username: who, provider, unlinked: removed })}\n` : `${removed} ${provider} identit${removed === 1 ? 'y' : 'ies'} unlinked from "${who}".\n`);
        return 0;
      }
    }
  }
}

/**
 * Issue 35: `factors <user>` lists a user's second factors (whether one-time codes are on, how
 * many recovery codes are left: never a secret or a hash); `remove-factor <user> totp|recovery|all`
 * removes them, for a person who lost their phone. The running service reads the database at
 * each sign-in, so a removal counts at once.
 */
async function factorsAction(store: Store, admin: UserAdmin, action: 'factors' | 'remove-factor', [who, kind]: string[], json: boolean): Promise<number> {
  const user = await admin.show(who!);
  if (action === 'factors') {
    const { totp, recoveryCodes, passkeys } = await store.factors.get(user.subjectId);
    const view = {
      username: user.username,
      subjectId: user.subjectId,
      totp: totp === undefined ? 'none' : totp.confirmedAt === undefined ? 'pending' : 'active',
      totpSince: iso(totp?.confirmedAt ?? totp?.createdAt),
      recoveryCodesLeft: recoveryCodes.filter((c) => c.usedAt === undefined).length,
      recoveryCodesTotal: recoveryCodes.length,
      // Names and dates only: a credential's id and public key stay in the database.
      passkeys: passkeys.map((p) => ({ name: p.name, created: iso(p.createdAt), lastUsed: iso(p.lastUsedAt) })),
    };
    if (json) out(`${JSON.stringify(view)}\n`);
    else out(table([['factor', 'state', 'since'], ['totp', view.totp, view.totpSince ?? '-'], ['recovery codes', `${view.recoveryCodesLeft} of ${view.recoveryCodesTotal} left`, iso(recoveryCodes[0]?.createdAt) ?? '-'],
      ...passkeys.map((p) => ['passkey', p.name, iso(p.createdAt) ?? '-'])]));
    return 0;
  }
  if (kind !== 'totp' && kind !== 'recovery' && kind !== 'passkey' && kind !== 'all') throw new CliError(`svc users remove-factor ${who} takes totp, recovery, passkey or all, got "${kind}".`);
  const removed = await store.factors.remove(user.subjectId, kind === 'all' ? undefined : kind);
  out(json ? `${JSON.stringify({ username: user.username, factor: kind, removed })}\n` : `${kind === 'all' ? 'every second factor' : kind === 'totp' ? 'one-time codes' : kind === 'passkey' ? 'passkeys' : 'recovery codes'} of "${user.username}" removed (${removed} record${removed === 1 ? '' : 's'}).\n`);
  return 0;
}
