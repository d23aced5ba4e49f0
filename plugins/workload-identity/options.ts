/**
 * `plugins["workload-identity"]` in `svc.config.ts`: the external issuers whose tokens may
 * authenticate clients. Read once at start-up; a bad option stops start-up naming its field
 * (`plugins.workload-identity.issuers[0].audience: ...`).
 *
 * @example
 * plugins: {
 *   'workload-identity': {
 *     issuers: [{ issuer: 'https://token.actions.githubusercontent.com', audience: 'https://auth.acme.example' }],
 *   },
 * }
 */
import { isJwsAlgorithm, jwsAlgorithms, OptionsError, type JwsAlgorithm } from 'svc/sdk';
import { readClaimRules, type ClaimRules } from './claim-rules.js';
import { parseJwks, type IssuerKey } from './jwks.js';

/** Where an issuer's keys come from. */
export type KeySource =
  | { readonly kind: 'jwksUri'; readonly url: URL }
  /** OpenID Connect Discovery 1.0 §4: `<issuer>/.well-known/openid-configuration`, then its `jwks_uri`. */
  | { readonly kind: 'discovery'; readonly url: URL }
  /** Keys written into the config (an air-gapped cluster's `kubectl get --raw /openid/v1/jwks`). */
  | { readonly kind: 'static'; readonly keys: readonly IssuerKey[] };

export interface TrustedIssuer {
  /** The exact `iss` of its tokens. */
  readonly issuer: string;
  /** The `aud` values this service answers to; a token must carry at least one. */
  readonly audience: readonly string[];
  readonly keys: KeySource;
  readonly algorithms: readonly JwsAlgorithm[];
  /** Longest accepted `exp − iat` in seconds. */
  readonly maxLifetime: number;
  /** Claims every token of this issuer must carry, whatever the client. */
  readonly claims: ClaimRules;
  /** A token with a `jti` authenticates once (RFC 7523 §3 item 7); `false` lets a platform's cached token be reused. */
  readonly singleUse: boolean;
  /** Refuse tokens without a `jti`. */
  readonly requireJti: boolean;
  /** PEM certificates trusted, besides the system's, when fetching this issuer's documents. */
  readonly tlsCa: string | undefined;
}

export interface WorkloadIdentityOptions {
  readonly issuers: readonly TrustedIssuer[];
  /** Seconds of tolerance for `exp`, `nbf`, `iat` and the lifetime limit. Default 60. */
  readonly clockSkew: number;
  /** Seconds a fetch of a discovery document or key set may take. Default 5. */
  readonly fetchTimeout: number;
  /** Seconds fetched keys are used before they are fetched again. Default 600. */
  readonly cacheTime: number;
  /** Fewest seconds between two fetches for one issuer (an unknown `kid`, a failure). Default 60. */
  readonly minRefreshInterval: number;
  /** Issuers and key URLs on a loopback address (and then over http too) are refused unless this is `true`: for tests. */
  readonly allowLoopback: boolean;
}

export const DEFAULT_ALGORITHMS: readonly JwsAlgorithm[] = Object.freeze(['RS256', 'ES256']);

const topLevel = ['issuers', 'clockSkew', 'fetchTimeout', 'cacheTime', 'minRefreshInterval', 'allowLoopback'];
const issuerFields = ['issuer', 'audience', 'jwksUri', 'jwks', 'algorithms', 'maxLifetime', 'claims', 'singleUse', 'requireJti', 'tlsCa'];

const found = (value: unknown): string => JSON.stringify(value) ?? String(value);

function seconds(raw: Readonly<Record<string, unknown>>, field: string, fallback: number, positive: boolean, at = field): number {
  const value = raw[field] ?? fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (positive && value === 0)) {
    throw new OptionsError(at, `expected a ${positive ? 'positive' : 'non-negative'} number of seconds, found ${found(value)}`);
  }
  return value;
}

function flag(raw: Readonly<Record<string, unknown>>, field: string, fallback: boolean, at = field): boolean {
  const value = raw[field] ?? fallback;
  if (typeof value !== 'boolean') throw new OptionsError(at, `expected true or false, found ${found(value)}`);
  return value;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** https, or (with `allowLoopback`) any scheme of http(s) on a loopback host; never a fragment or credentials. */
export function checkFetchUrl(text: unknown, at: string, allowLoopback: boolean): URL {
  let url: URL;
  try {
    if (typeof text !== 'string') throw new Error();
    url = new URL(text);
  } catch {
    throw new OptionsError(at, `expected an https URL, found ${found(text)}`);
  }
  const loopback = LOOPBACK.test(url.hostname);
  if (loopback && !allowLoopback) {
    throw new OptionsError(at, `${url.hostname} is a loopback address; allowed only with allowLoopback: true (for tests)`);
  }
  if (url.protocol !== 'https:' && !(loopback && url.protocol === 'http:')) {
    throw new OptionsError(at, `expected an https URL, found ${found(text)}`);
  }
  if (url.username !== '' || url.password !== '' || url.hash !== '') throw new OptionsError(at, 'a URL with credentials or a fragment is not allowed');
  return url;
}

function readIssuer(raw: unknown, index: number, allowLoopback: boolean, seen: Set<string>): TrustedIssuer {
  const at = (field: string) => `issuers[${index}].${field}`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new OptionsError(`issuers[${index}]`, `expected an object, found ${found(raw)}`);
  const entry = raw as Record<string, unknown>;
  for (const name of Object.keys(entry)) {
    if (!issuerFields.includes(name)) throw new OptionsError(at(name), `unknown field; expected one of ${issuerFields.join(', ')}`);
  }
  const { issuer, audience, jwksUri, jwks, algorithms = DEFAULT_ALGORITHMS, tlsCa } = entry;
  if (typeof issuer !== 'string' || issuer === '') throw new OptionsError(at('issuer'), `expected the issuer's iss value, found ${found(issuer)}`);
  if (seen.has(issuer)) throw new OptionsError(at('issuer'), `${found(issuer)} is listed twice`);
  seen.add(issuer);

  const audiences = typeof audience === 'string' ? [audience] : audience;
  if (!Array.isArray(audiences) || audiences.length === 0 || !audiences.every((a) => typeof a === 'string' && a !== '')) {
    throw new OptionsError(at('audience'), `expected the aud value (or a list of them) this service answers to, found ${found(audience)}`);
  }
  if (!Array.isArray(algorithms) || algorithms.length === 0 || !algorithms.every(isJwsAlgorithm) || new Set(algorithms).size !== algorithms.length) {
    throw new OptionsError(at('algorithms'), `expected a non-empty list of distinct values from ${jwsAlgorithms.join(', ')}, found ${found(algorithms)}`);
  }
  if (tlsCa !== undefined && (typeof tlsCa !== 'string' || !tlsCa.includes('-----BEGIN CERTIFICATE-----'))) {
    throw new OptionsError(at('tlsCa'), 'expected PEM certificate text (e.g. readFileSync("issuer-ca.pem", "utf8"))');
  }

  let keys: KeySource;
  if (jwksUri !== undefined && jwks !== undefined) throw new OptionsError(at('jwks'), 'give jwksUri or jwks, not both');
  if (jwks !== undefined) {
    try {
      keys = { kind: 'static', keys: parseJwks(jwks, algorithms) };
    } catch (error) {
      throw new OptionsError(at('jwks'), (error as Error).message);
    }
    if (keys.keys.length === 0) throw new OptionsError(at('jwks'), 'holds no key usable for signatures');
  } else if (jwksUri !== undefined) {
    keys = { kind: 'jwksUri', url: checkFetchUrl(jwksUri, at('jwksUri'), allowLoopback) };
  } else {
    const base = checkFetchUrl(issuer, at('issuer'), allowLoopback);
    keys = { kind: 'discovery', url: new URL(`${base.href.replace(/\/$/, '')}/.well-known/openid-configuration`) };
  }

  let claims: ClaimRules;
  try {
    claims = readClaimRules(entry.claims ?? {});
  } catch (error) {
    throw new OptionsError(at('claims'), (error as Error).message);
  }
  return Object.freeze({
    issuer,
    audience: Object.freeze([...audiences]),
    keys,
    algorithms: Object.freeze([...algorithms]),
    maxLifetime: seconds(entry, 'maxLifetime', 3600, true, at('maxLifetime')),
    claims,
    singleUse: flag(entry, 'singleUse', true, at('singleUse')),
    requireJti: flag(entry, 'requireJti', false, at('requireJti')),
    tlsCa: tlsCa as string | undefined,
  });
}

/** The plugin's options parser (run once by the host). */
export function readOptions(raw: Readonly<Record<string, unknown>>): WorkloadIdentityOptions {
  for (const name of Object.keys(raw)) {
    if (!topLevel.includes(name)) throw new OptionsError(name, `unknown option; expected one of ${topLevel.join(', ')}`);
  }
  const allowLoopback = flag(raw, 'allowLoopback', false);
  const { issuers = [] } = raw;
  if (!Array.isArray(issuers)) throw new OptionsError('issuers', `expected a list of trusted issuers, found ${found(issuers)}`);
  const seen = new Set<string>();
  return Object.freeze({
    issuers: Object.freeze(issuers.map((entry, i) => readIssuer(entry, i, allowLoopback, seen))),
    clockSkew: seconds(raw, 'clockSkew', 60, false),
    fetchTimeout: seconds(raw, 'fetchTimeout', 5, true),
    cacheTime: seconds(raw, 'cacheTime', 600, true),
    minRefreshInterval: seconds(raw, 'minRefreshInterval', 60, false),
    allowLoopback,
  });
}
