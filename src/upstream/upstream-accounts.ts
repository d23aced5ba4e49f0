/**
 * Account linking (issue 34): an upstream identity — provider, issuer and the provider's
 * subject — maps to one local user. The port is small on purpose so the database user store
 * (`src/users/`) can implement it; `createMemoryUpstreamAccounts` is the one tests use.
 *
 * The link is keyed by (provider, issuer, subject) only, never by e-mail: the local subject
 * stays the same when the upstream address changes (OIDC Core §5.7: only `iss` + `sub` identify
 * an end-user; an e-mail address may be reassigned).
 */
import { randomUUID } from 'node:crypto';

/** Who the provider says signed in, after the claim mapping. */
export interface UpstreamIdentity {
  /** The configured provider's `name`. */
  readonly provider: string;
  readonly issuer: string;
  /** The provider's subject (`sub`, or an OAuth 2.0 provider's `subjectClaim`, as a string). */
  readonly subject: string;
  /** Our claims, by the provider's `claimMapping`. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** The mapped `email`, lower-cased, when there is one. */
  readonly email?: string | undefined;
  /** The mapped `email_verified` is `true`. */
  readonly emailVerified: boolean;
}

export interface UpstreamAccounts {
  /** The local subject linked to this upstream identity, if any. */
  findByUpstream(provider: string, issuer: string, subject: string): Promise<string | undefined>;
  /** A new user (a fresh random subject, never reused) with the identity linked and its claims; returns the subject. */
  createFromUpstream(identity: UpstreamIdentity): Promise<string>;
  /**
   * Links the identity to the existing user whose e-mail is `identity.email` and verified, and
   * returns that user's subject; `undefined` when there is none. Called only when the deployment
   * allows it and the provider is trusted to verify e-mail (`linkLocalAccount`).
   */
  linkByVerifiedEmail(identity: UpstreamIdentity): Promise<string | undefined>;
}

export interface LinkPolicy {
  /** `upstreamSignIn.linkByVerifiedEmail`. */
  readonly linkByVerifiedEmail: boolean;
  /** The provider's `trustEmailVerified`. */
  readonly providerVerifiesEmail: boolean;
}

/**
 * Finds or creates the local user for an upstream identity: a link first; then, only when the
 * deployment allows it and the provider is trusted to verify e-mail, an existing user with the
 * same verified address; else a new user (just-in-time provisioning).
 */
export async function localSubjectFor(accounts: UpstreamAccounts, identity: UpstreamIdentity, policy: LinkPolicy): Promise<{ subject: string; how: 'found' | 'linked' | 'created' }> {
  const found = await accounts.findByUpstream(identity.provider, identity.issuer, identity.subject);
  if (found !== undefined) return { subject: found, how: 'found' };
  if (policy.linkByVerifiedEmail && policy.providerVerifiesEmail && identity.emailVerified && identity.email !== undefined) {
    const linked = await accounts.linkByVerifiedEmail(identity);
    if (linked !== undefined) return { subject: linked, how: 'linked' };
  }
  return { subject: await accounts.createFromUpstream(identity), how: 'created' };
}

/** A user the memory store holds. */
export interface MemoryUpstreamUser {
  readonly subject: string;
  email?: string | undefined;
  emailVerified: boolean;
  claims: Record<string, unknown>;
  readonly links: Array<{ provider: string; issuer: string; subject: string }>;
}

/** In-process accounts for tests and single-node trials; `users` seeds existing local users. */
export function createMemoryUpstreamAccounts(users: ReadonlyArray<{ subject: string; email?: string; emailVerified?: boolean; claims?: Record<string, unknown> }> = []) {
  const bySubject = new Map<string, MemoryUpstreamUser>();
  for (const u of users) bySubject.set(u.subject, { subject: u.subject, email: u.email?.toLowerCase(), emailVerified: u.emailVerified ?? false, claims: { ...u.claims }, links: [] });
  const linkKey = (provider: string, issuer: string, subject: string): string => JSON.stringify([provider, issuer, subject]);
  const links = new Map<string, string>();
  const link = (user: MemoryUpstreamUser, identity: UpstreamIdentity): void => {
    user.links.push({ provider: identity.provider, issuer: identity.issuer, subject: identity.subject });
    links.set(linkKey(identity.provider, identity.issuer, identity.subject), user.subject);
  };
  const accounts: UpstreamAccounts & { users: ReadonlyMap<string, MemoryUpstreamUser> } = {
    users: bySubject,
    async findByUpstream(provider, issuer, subject) {
      return links.get(linkKey(provider, issuer, subject));
    },
    async createFromUpstream(identity) {
      const user: MemoryUpstreamUser = { subject: randomUUID(), email: identity.email, emailVerified: identity.emailVerified, claims: { ...identity.claims }, links: [] };
      bySubject.set(user.subject, user);
      link(user, identity);
      return user.subject;
    },
    async linkByVerifiedEmail(identity) {
      const user = [...bySubject.values()].find((u) => u.emailVerified && u.email !== undefined && u.email === identity.email);
      if (!user) return undefined;
      link(user, identity);
      return user.subject;
    },
  };
  return accounts;
}
