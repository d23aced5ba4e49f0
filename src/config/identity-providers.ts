/**
 * ISSUE 34 — `identityProviders` and `upstreamSignIn`: sign-in through upstream OpenID
 * Connect and OAuth 2.0 providers. Kept in this one file (types, defaults, checks, resolution):
 * `schema.ts` declares both fields through their checkers (`checkedBy`), `cross-checks.ts` holds
 * the one check across them, and `resolve.ts` fills in the defaults with `resolveIdentityProviders`.
 */
import type { Problems } from './fields.js';

/** Upstream claim → our claim, e.g. `{ login: 'preferred_username' }`. */
export type ClaimMapping = Record<string, string>;

interface IdentityProviderCommon {
  /** The provider's id: `[a-z0-9-]`, used in `acr_values=idp:<name>` and the `idp` claim. */
  name: string;
  /** What the sign-in page's button says, e.g. `"Contoso (Entra ID)"`. */
  displayName: string;
  clientId: string;
  /** The client secret the provider gave us (`client_secret_basic`); or `privateKeyJwt`. */
  clientSecret?: string;
  /** `private_key_jwt` (RFC 7523 §2.2) towards the provider: our private JWK (with `alg` and `kid`). */
  privateKeyJwt?: { key: Record<string, unknown> };
  /** What to ask for. Default for `oidc`: `["openid", "email", "profile"]`; for `oauth2`: none. */
  scopes?: string[];
  /** Upstream claim → our claim. Claims not named are dropped. Default: `email`, `email_verified`, `name`, `preferred_username` as they are. */
  claimMapping?: ClaimMapping;
  /** Only people whose (mapped) `email` ends in `@<one of these>` may sign in, e.g. `["contoso.com"]`. */
  allowedEmailDomains?: string[];
  /** Only people whose upstream claim `name` equals `value` may sign in, e.g. `{ name: 'hd', value: 'contoso.com' }`. */
  requiredClaim?: { name: string; value: string | number | boolean };
  /**
   * A request whose `login_hint` is an address at one of these domains (exactly, e.g.
   * `"contoso.com"`) goes straight to this provider, without the sign-in page. An
   * `acr_values=idp:<name>` naming a provider wins over it. A domain belongs to one provider.
   */
  domains?: string[];
  /**
   * The provider verifies e-mail addresses (it is the authority for the domain, e.g. a company's
   * own Entra ID tenant): only then may a verified `email` link to an existing user, and only
   * when `upstreamSignIn.linkByVerifiedEmail` is on. Default false.
   */
  trustEmailVerified?: boolean;
  /**
   * OpenID Connect: add the provider's own `amr` (RFC 8176, from its ID token) to ours after
   * `"external"`. Our `acr` and the second-factor step read `amr`, so its `"mfa"` then counts as
   * a second factor here: only for a provider trusted to say so. Default false.
   */
  trustAmr?: boolean;
  /** Seconds any one call to the provider may take. Default 10. */
  timeout?: number;
}

export interface OidcProviderConfig extends IdentityProviderCommon {
  type: 'oidc';
  /**
   * When a person who signed in here signs out of our service (`/connect/endsession`), send the
   * browser to the provider's `end_session_endpoint` (RP-Initiated Logout 1.0) to sign out there
   * too, then on with our logout. Keeps the provider's ID token in our session (the
   * `id_token_hint`). Register `<issuer>/connect/endsession/callback` at the provider as a
   * post-logout redirect URI. Default false.
   */
  logoutAtProvider?: boolean;
  /** The issuer; `<issuer>/.well-known/openid-configuration` is read at start-up (OIDC Discovery §4). */
  issuer: string;
}

export interface OAuth2ProviderConfig extends IdentityProviderCommon {
  type: 'oauth2';
  authorizationUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  /** The user-info member that is the person's stable id, e.g. GitHub's `"id"`. Default `"id"`. */
  subjectClaim?: string;
  /** What the identity is called in account links (no OAuth 2.0 issuer exists). Default: the authorization URL's origin. */
  issuer?: string;
}

export type IdentityProviderConfig = OidcProviderConfig | OAuth2ProviderConfig;

export interface UpstreamSignInConfig {
  /** Show only the providers' buttons, no username and password form. Default false. */
  hidePasswordForm?: boolean;
  /** Link a first upstream sign-in to an existing user by a verified e-mail, from providers with `trustEmailVerified`. Default false. */
  linkByVerifiedEmail?: boolean;
}

export interface ResolvedIdentityProvider {
  readonly name: string;
  readonly displayName: string;
  readonly type: 'oidc' | 'oauth2';
  /** `oidc`: the issuer; `oauth2`: `issuer` or the authorization URL's origin. */
  readonly issuer: string;
  readonly authorizationUrl?: string | undefined;
  readonly tokenUrl?: string | undefined;
  readonly userInfoUrl?: string | undefined;
  readonly subjectClaim: string;
  readonly clientId: string;
  readonly clientSecret?: string | undefined;
  readonly privateKeyJwt?: { readonly key: Readonly<Record<string, unknown>> } | undefined;
  readonly scopes: readonly string[];
  readonly claimMapping: Readonly<ClaimMapping>;
  readonly allowedEmailDomains?: readonly string[] | undefined;
  readonly requiredClaim?: { readonly name: string; readonly value: string | number | boolean } | undefined;
  /** Lower case; empty when none. */
  readonly domains: readonly string[];
  readonly trustEmailVerified: boolean;
  readonly trustAmr: boolean;
  readonly logoutAtProvider: boolean;
  readonly timeout: number;
}

export interface ResolvedUpstreamSignIn {
  readonly identityProviders: readonly ResolvedIdentityProvider[];
  readonly upstreamSignIn: { readonly hidePasswordForm: boolean; readonly linkByVerifiedEmail: boolean };
}

export const identityProviderDefaults = {
  oidcScopes: ['openid', 'email', 'profile'],
  claimMapping: { email: 'email', email_verified: 'email_verified', name: 'name', preferred_username: 'preferred_username' },
  subjectClaim: 'id',
  timeout: 10,
} as const;

const commonFields = [
  'name', 'displayName', 'type', 'clientId', 'clientSecret', 'privateKeyJwt', 'scopes', 'claimMapping', 'allowedEmailDomains', 'requiredClaim',
  'domains', 'trustEmailVerified', 'trustAmr', 'timeout',
];
const fieldsOf = { oidc: [...commonFields, 'issuer', 'logoutAtProvider'], oauth2: [...commonFields, 'authorizationUrl', 'tokenUrl', 'userInfoUrl', 'subjectClaim', 'issuer'] };
const providerName = /^[a-z0-9][a-z0-9-]{0,39}$/;
const domain = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const kindOf = (v: unknown): string => (v === undefined ? 'nothing' : v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v === 'string' ? `"${v.slice(0, 40)}"` : `${typeof v} ${String(v)}`);

function url(p: Problems, path: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') return p.add(path, `required, expected an absolute https URL, got ${kindOf(value)}`);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return p.add(path, `expected an absolute https URL, got ${kindOf(value)}`);
  }
  // RFC 9700 §2.6 (and OIDC Discovery §4): the browser and our code exchange go over TLS; plain
  // http only to this machine, for tests and a provider on loopback.
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) p.add(path, `expected an https URL (http only on loopback), got ${kindOf(value)}`);
}

function nonEmpty(p: Problems, path: string, value: unknown): value is string {
  if (typeof value === 'string' && value !== '') return true;
  p.add(path, `required, expected a non-empty string, got ${kindOf(value)}`);
  return false;
}

/** Start-up checks of `upstreamSignIn`; each message names the field (`upstreamSignIn.<key>`). */
export function checkUpstreamSignIn(p: Problems, opts: unknown): void {
  if (opts === undefined) return;
  if (!isObject(opts)) return p.add('upstreamSignIn', `expected an object, got ${kindOf(opts)}`);
  for (const key of Object.keys(opts)) if (key !== 'hidePasswordForm' && key !== 'linkByVerifiedEmail') p.add(`upstreamSignIn.${key}`, 'unknown field (known: hidePasswordForm, linkByVerifiedEmail)');
  for (const key of ['hidePasswordForm', 'linkByVerifiedEmail'] as const) {
    if (opts[key] !== undefined && typeof opts[key] !== 'boolean') p.add(`upstreamSignIn.${key}`, `expected true or false, got ${kindOf(opts[key])}`);
  }
}

/** The check across both fields (`cross-checks.ts`): hiding the password form needs providers. */
export function checkHiddenPasswordForm(p: Problems, raw: { identityProviders?: unknown; upstreamSignIn?: unknown }): void {
  const opts = raw.upstreamSignIn;
  if (raw.identityProviders === undefined && isObject(opts) && opts.hidePasswordForm === true) {
    p.add('upstreamSignIn.hidePasswordForm', 'needs identityProviders: without them nobody could sign in');
  }
}

/** Start-up checks of `identityProviders`; each message names the field (`identityProviders[i].<key>`). */
export function checkIdentityProviders(p: Problems, list: unknown): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) return p.add('identityProviders', `expected an array, got ${kindOf(list)}`);
  const names = new Set<string>();
  const domainOwners = new Map<string, string>();
  list.forEach((entry: unknown, i) => {
    const at = `identityProviders[${i}]`;
    if (!isObject(entry)) return p.add(at, `expected an object, got ${kindOf(entry)}`);
    if (entry.type !== 'oidc' && entry.type !== 'oauth2') return p.add(`${at}.type`, `expected "oidc" or "oauth2", got ${kindOf(entry.type)}`);
    for (const key of Object.keys(entry)) if (!fieldsOf[entry.type].includes(key)) p.add(`${at}.${key}`, `unknown field for type "${entry.type}" (known: ${fieldsOf[entry.type].join(', ')})`);
    if (nonEmpty(p, `${at}.name`, entry.name)) {
      if (!providerName.test(entry.name)) p.add(`${at}.name`, `expected lower-case letters, digits and "-" (at most 40), got ${kindOf(entry.name)}`);
      else if (names.has(entry.name)) p.add(`${at}.name`, `"${entry.name}" is already the name of another identity provider`);
      names.add(entry.name);
    }
    nonEmpty(p, `${at}.displayName`, entry.displayName);
    nonEmpty(p, `${at}.clientId`, entry.clientId);
    if (entry.type === 'oidc') url(p, `${at}.issuer`, entry.issuer);
    else {
      for (const field of ['authorizationUrl', 'tokenUrl', 'userInfoUrl'] as const) url(p, `${at}.${field}`, entry[field]);
      if (entry.subjectClaim !== undefined) nonEmpty(p, `${at}.subjectClaim`, entry.subjectClaim);
      if (entry.issuer !== undefined) url(p, `${at}.issuer`, entry.issuer);
    }
    // Never the secret's value in a message: only its type.
    const hasSecret = entry.clientSecret !== undefined;
    if (hasSecret && (typeof entry.clientSecret !== 'string' || entry.clientSecret === '')) p.add(`${at}.clientSecret`, 'expected a non-empty string');
    if (entry.privateKeyJwt !== undefined) {
      const key = isObject(entry.privateKeyJwt) ? entry.privateKeyJwt.key : undefined;
      if (!isObject(key) || typeof key.kty !== 'string' || typeof key.d !== 'string') p.add(`${at}.privateKeyJwt.key`, 'expected a private JWK (with kty and d)');
      else if (typeof key.alg !== 'string') p.add(`${at}.privateKeyJwt.key.alg`, 'required: the JWS algorithm to sign the client assertion with, e.g. "RS256"');
    }
    if (hasSecret === (entry.privateKeyJwt !== undefined)) p.add(`${at}.clientSecret`, 'give exactly one of clientSecret and privateKeyJwt (how we authenticate to the provider)');
    if (entry.scopes !== undefined) {
      if (!Array.isArray(entry.scopes) || entry.scopes.some((s) => typeof s !== 'string' || !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s))) p.add(`${at}.scopes`, 'expected an array of scope names');
      else if (entry.type === 'oidc' && !entry.scopes.includes('openid')) p.add(`${at}.scopes`, 'an OpenID Connect provider needs "openid" (OIDC Core §3.1.2.1)');
    }
    if (entry.claimMapping !== undefined && (!isObject(entry.claimMapping) || Object.values(entry.claimMapping).some((v) => typeof v !== 'string' || v === ''))) {
      p.add(`${at}.claimMapping`, 'expected an object of upstream claim → our claim names, e.g. { login: "preferred_username" }');
    } else if (isObject(entry.claimMapping) && Object.values(entry.claimMapping).includes('sub')) {
      p.add(`${at}.claimMapping`, 'cannot map to "sub": our subject is our own, never the provider\'s');
    }
    if (entry.allowedEmailDomains !== undefined) {
      if (!Array.isArray(entry.allowedEmailDomains) || entry.allowedEmailDomains.length === 0) p.add(`${at}.allowedEmailDomains`, 'expected a non-empty array of domains, e.g. ["contoso.com"]');
      else entry.allowedEmailDomains.forEach((d, j) => (typeof d === 'string' && domain.test(d) ? undefined : p.add(`${at}.allowedEmailDomains[${j}]`, `expected a domain like "contoso.com", got ${kindOf(d)}`)));
    }
    if (entry.domains !== undefined) {
      if (!Array.isArray(entry.domains) || entry.domains.length === 0) p.add(`${at}.domains`, 'expected a non-empty array of domains, e.g. ["contoso.com"]');
      else entry.domains.forEach((d, j) => {
        if (typeof d !== 'string' || !domain.test(d)) return p.add(`${at}.domains[${j}]`, `expected a domain like "contoso.com", got ${kindOf(d)}`);
        // One domain, one provider: a login_hint must not depend on the order of the list.
        const owner = domainOwners.get(d.toLowerCase());
        if (owner !== undefined) p.add(`${at}.domains[${j}]`, `"${d}" already goes to identity provider ${owner}`);
        else domainOwners.set(d.toLowerCase(), typeof entry.name === 'string' ? `"${entry.name}"` : `#${i}`);
      });
    }
    if (entry.requiredClaim !== undefined) {
      const rc = entry.requiredClaim;
      if (!isObject(rc) || typeof rc.name !== 'string' || rc.name === '' || !['string', 'number', 'boolean'].includes(typeof rc.value)) {
        p.add(`${at}.requiredClaim`, 'expected { name: "<upstream claim>", value: <string, number or boolean> }');
      }
    }
    for (const key of ['trustEmailVerified', 'trustAmr', 'logoutAtProvider'] as const) {
      if (entry[key] !== undefined && typeof entry[key] !== 'boolean') p.add(`${at}.${key}`, `expected true or false, got ${kindOf(entry[key])}`);
    }
    if (entry.timeout !== undefined && (typeof entry.timeout !== 'number' || !Number.isInteger(entry.timeout) || entry.timeout < 1 || entry.timeout > 60)) {
      p.add(`${at}.timeout`, `expected whole seconds from 1 to 60, got ${kindOf(entry.timeout)}`);
    }
  });
}

/** The resolved fields; call only on a config `checkIdentityProviders` accepted. */
export function resolveIdentityProviders(user: { identityProviders?: IdentityProviderConfig[]; upstreamSignIn?: UpstreamSignInConfig }): ResolvedUpstreamSignIn {
  return {
    identityProviders: (user.identityProviders ?? []).map((e): ResolvedIdentityProvider => ({
      name: e.name,
      displayName: e.displayName,
      type: e.type,
      issuer: e.type === 'oidc' ? e.issuer : (e.issuer ?? new URL(e.authorizationUrl).origin),
      authorizationUrl: e.type === 'oauth2' ? e.authorizationUrl : undefined,
      tokenUrl: e.type === 'oauth2' ? e.tokenUrl : undefined,
      userInfoUrl: e.type === 'oauth2' ? e.userInfoUrl : undefined,
      subjectClaim: e.type === 'oauth2' ? (e.subjectClaim ?? identityProviderDefaults.subjectClaim) : 'sub',
      clientId: e.clientId,
      clientSecret: e.clientSecret,
      privateKeyJwt: e.privateKeyJwt ? { key: { ...e.privateKeyJwt.key } } : undefined,
      scopes: [...(e.scopes ?? (e.type === 'oidc' ? identityProviderDefaults.oidcScopes : []))],
      claimMapping: { ...(e.claimMapping ?? identityProviderDefaults.claimMapping) },
      allowedEmailDomains: e.allowedEmailDomains?.map((d) => d.toLowerCase()),
      requiredClaim: e.requiredClaim ? { ...e.requiredClaim } : undefined,
      domains: (e.domains ?? []).map((d) => d.toLowerCase()),
      trustEmailVerified: e.trustEmailVerified ?? false,
      trustAmr: e.trustAmr ?? false,
      logoutAtProvider: e.type === 'oidc' ? (e.logoutAtProvider ?? false) : false,
      timeout: e.timeout ?? identityProviderDefaults.timeout,
    })),
    upstreamSignIn: {
      hidePasswordForm: user.upstreamSignIn?.hidePasswordForm ?? false,
      linkByVerifiedEmail: user.upstreamSignIn?.linkByVerifiedEmail ?? false,
    },
  };
}
