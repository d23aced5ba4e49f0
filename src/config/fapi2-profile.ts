/**
 * The FAPI 2.0 profile in one place: every rule the service enforces for a client under the
 * FAPI 2.0 Security Profile (Final, February 2025; "SP") or, on top of it, FAPI 2.0 Message
 * Signing ("MS"), each with its section. `fapi2` (global, and per client, `model.ts`) turns it on.
 *
 * Rules that are config are checked at start-up (`checkFapi2Config`, called by `cross-checks.ts`
 * for the config's clients and by the entry checker for stored and registered ones): a client
 * that breaks one stops start-up, its id, the field and the rule named. Rules that are requests
 * are checked on the wire by the functions below, called from the one place each request is
 * judged (named beside each); docs/guides/fapi2.md has the table with the test of each rule.
 *
 * Already true for every client, profile or not, so nothing to enforce here: `iss` in every
 * authorization response (RFC 9207, SP §5.3.2.2), only `response_type=code` (SP §5.3.2.2), PKCE S256 as
 * the only method (RFC 9700 §2.1.1), a `request_uri` used once, and no open redirector.
 */
import type { Client } from './model.js';
import { InvalidDpopProof, InvalidRequest, InvalidRequestObject } from '../sdk/errors.js';

export const fapi2Profiles = ['off', 'security', 'message-signing'] as const;
export type Fapi2Profile = (typeof fapi2Profiles)[number];

/** SP §5.4 (Cryptography and secrets): the only JWS algorithms; no RS256, no `none`. */
export const fapi2Algorithms: readonly string[] = ['PS256', 'ES256', 'EdDSA'];
/** What a client's signature may use: the same, with RFC 9864's `Ed25519`, EdDSA with the curve SP §5.4 names. */
const fapi2ClientAlgorithms: readonly string[] = [...fapi2Algorithms, 'Ed25519'];
/** SP §5.3.2.1: clients authenticate with mutual TLS (RFC 8705 §2) or `private_key_jwt` only. */
export const fapi2AuthMethods: readonly string[] = ['private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth'];
/** SP §5.3.2.2: authorization codes live at most 60 seconds. */
export const fapi2MaxCodeLifetime = 60;
/** JARM §2.3 response modes (MS §5.4). */
const signedResponseModes: ReadonlySet<string> = new Set(['jwt', 'query.jwt', 'form_post.jwt']);

/** The profile a client is under: its own `fapi2`, which `resolve.ts` filled from the global one. */
export function fapi2Of(client: Pick<Client, 'fapi2'>): Fapi2Profile {
  return client.fapi2 ?? 'off';
}
const underProfile = (client: Pick<Client, 'fapi2'>): boolean => fapi2Of(client) !== 'off';
const underMessageSigning = (client: Pick<Client, 'fapi2'>): boolean => fapi2Of(client) === 'message-signing';

// ---------------------------------------------------------------------------------------------
// Start-up: the rules that are config.

type Raw = Record<string, unknown>;
type Add = (path: readonly PropertyKey[], message: string) => void;
const isObject = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);
const isProfile = (value: unknown): value is Fapi2Profile => typeof value === 'string' && (fapi2Profiles as readonly string[]).includes(value);
const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** One config rule: its section, and what it says when broken (without the client's name). */
interface ConfigRule {
  readonly section: string;
  readonly field: string;
  /** A message when the client breaks the rule, else undefined. */
  readonly check: (client: Raw, profile: Fapi2Profile) => string | undefined;
}

const listed = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const algorithmList = fapi2Algorithms.join(', ');

export const fapi2ConfigRules: readonly ConfigRule[] = [
  {
    section: 'SP §5.3.2.1', field: 'requireClientSecret',
    check: (c) => (c.requireClientSecret === false ? 'only confidential clients: remove requireClientSecret: false' : undefined),
  },
  {
    section: 'SP §5.3.2.1', field: 'allowedGrantTypes',
    check: (c) => (listed(c.allowedGrantTypes).includes('password') ? 'the resource owner password credentials grant is not allowed: remove "password"' : undefined),
  },
  {
    section: 'SP §5.3.2.1', field: 'tokenEndpointAuthMethods',
    check: (c) => {
      const methods = listed(c.tokenEndpointAuthMethods);
      if (c.tokenEndpointAuthMethods === undefined || methods.length === 0) return `list the client's authentication methods, only ${fapi2AuthMethods.join(', ')}`;
      const other = methods.filter((m) => !fapi2AuthMethods.includes(m));
      return other.length > 0 ? `${other.map(show).join(', ')} not allowed: clients authenticate with ${fapi2AuthMethods.join(', ')} only` : undefined;
    },
  },
  {
    section: 'SP §5.3.2.2', field: 'requirePkce',
    check: (c) => (c.requirePkce === false ? 'PKCE with S256 is required: remove requirePkce: false' : undefined),
  },
  {
    section: 'SP §5.3.2.2', field: 'redirectUris',
    check: (c) => {
      const plain = listed(c.redirectUris).filter((uri) => !uri.startsWith('https://'));
      return plain.length > 0 ? `redirect URIs must be https, got ${plain.map(show).join(', ')}` : undefined;
    },
  },
  {
    section: 'SP §5.3.2.2', field: 'authorizationCodeLifetime',
    check: (c) => {
      // The field's default (300) is over the limit: the client must say 60 or less.
      const lifetime = typeof c.authorizationCodeLifetime === 'number' ? c.authorizationCodeLifetime : undefined;
      return lifetime === undefined || lifetime > fapi2MaxCodeLifetime
        ? `authorization codes live at most ${fapi2MaxCodeLifetime} s: set authorizationCodeLifetime to ${fapi2MaxCodeLifetime} or less, got ${lifetime ?? '300 (the default)'}`
        : undefined;
    },
  },
  {
    section: 'SP §5.4', field: 'allowedIdentityTokenSigningAlgorithms',
    check: (c) => {
      const first = listed(c.allowedIdentityTokenSigningAlgorithms)[0];
      return first === undefined || !fapi2Algorithms.includes(first)
        ? `ID tokens must be signed with ${algorithmList}: put one first (and in signing.idTokenAlgorithms), got ${first === undefined ? 'RS256 (the default)' : show(first)}`
        : undefined;
    },
  },
  {
    section: 'SP §5.4', field: 'authorizationSignedResponseAlg',
    check: (c) => {
      const alg = c.authorizationSignedResponseAlg;
      return typeof alg !== 'string' || !fapi2Algorithms.includes(alg)
        ? `signed authorization responses (JARM) must use ${algorithmList}, got ${typeof alg === 'string' ? show(alg) : 'RS256 (the default)'}`
        : undefined;
    },
  },
];

/**
 * The config rules for every client under the profile (its own `fapi2`, else the global one),
 * and the service-wide ones when any client is: access tokens signed with a FAPI algorithm
 * (SP §5.4), and under a global profile API resources' signed introspection answers (MS §5.5,
 * RFC 9701) with one too. Messages name the client: `clients[0].redirectUris: client "bank"
 * (FAPI 2.0 security, SP §5.3.2.2): redirect URIs must be https, ...`.
 */
export function checkFapi2Config(raw: Raw, add: Add): void {
  const global: Fapi2Profile = isProfile(raw.fapi2) ? raw.fapi2 : 'off';
  const clients = Array.isArray(raw.clients) ? raw.clients : [];
  let anyUnder = global !== 'off';
  clients.forEach((entry, i) => {
    if (!isObject(entry)) return;
    const profile = entry.fapi2 === undefined ? global : isProfile(entry.fapi2) ? entry.fapi2 : 'off';
    if (profile === 'off') return;
    anyUnder = true;
    const name = typeof entry.clientId === 'string' ? `client "${entry.clientId}"` : 'the client';
    for (const rule of fapi2ConfigRules) {
      const broken = rule.check(entry, profile);
      if (broken !== undefined) add(['clients', i, rule.field], `${name} (FAPI 2.0 ${profile}, ${rule.section}): ${broken}`);
    }
  });
  if (!anyUnder) return;
  const signing = isObject(raw.signing) ? raw.signing : {};
  // The declaration's default, ES256, is one of them.
  const accessTokenAlgorithm = typeof signing.accessTokenAlgorithm === 'string' ? signing.accessTokenAlgorithm : 'ES256';
  if (!fapi2Algorithms.includes(accessTokenAlgorithm)) {
    add(['signing', 'accessTokenAlgorithm'], `FAPI 2.0 (SP §5.4): access tokens must be signed with ${algorithmList}, got ${show(accessTokenAlgorithm)}`);
  }
  if (global === 'off') return;
  (Array.isArray(raw.apiResources) ? raw.apiResources : []).forEach((r, i) => {
    // An API without secrets cannot introspect.
    if (!isObject(r) || !Array.isArray(r.secrets) || r.secrets.length === 0) return;
    const alg = r.introspectionSigningAlgorithm;
    if (typeof alg !== 'string' || !fapi2Algorithms.includes(alg)) {
      add(['apiResources', i, 'introspectionSigningAlgorithm'], `API resource ${show(r.name)} (FAPI 2.0 ${global}, ${global === 'message-signing' ? 'MS §5.5, ' : ''}SP §5.4): signed introspection answers must use ${algorithmList}, got ${typeof alg === 'string' ? show(alg) : 'RS256 (the default)'}`);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// On the wire: the rules that are requests.

/**
 * SP §5.3.2.1: no refresh token rotation unless a client that lost the answer with the new
 * token can retry with the old one and succeed. The service's rotation spends the presented
 * token (a retry within `refreshTokenReuseInterval` is refused, later it revokes the family), so
 * for a client under the profile (confidential and sender-constrained, which is what makes a
 * stolen refresh token useless without the client's key) it is off: the refresh grant spends
 * nothing and the token issuer issues no new refresh token (`refresh-token.ts`, `token-issuer.ts`).
 * The token lives until its family's absolute end, or its sliding lifetime from issuance.
 */
export function rotatesRefreshTokens(client: Pick<Client, 'fapi2'>): boolean {
  return !underProfile(client);
}

/**
 * At the authorization endpoint and at PAR (`authorization-request.ts`, after the client's own
 * `requirePushedAuthorization` and `requireRequestObject`):
 * - SP §5.3.2.2: only through PAR (RFC 9126), a `request_uri` at the authorization endpoint.
 * - MS §5.3: the pushed request is a signed request object (RFC 9101).
 * - MS §5.4: the response is signed (JARM `response_mode` `jwt`, `query.jwt` or `form_post.jwt`).
 */
export function checkFapi2AuthorizationRequest(
  client: Pick<Client, 'fapi2'>,
  request: { readonly pushed: boolean; readonly signed: boolean; readonly responseMode: string | undefined },
): void {
  if (!underProfile(client)) return;
  if (!request.pushed) throw new InvalidRequest('This client must use pushed authorization requests (FAPI 2.0).', { logDetail: 'FAPI 2.0 SP §5.3.2.2: authorization request not pushed' });
  if (!underMessageSigning(client)) return;
  if (!request.signed) throw new InvalidRequest('This client must push a signed request object (FAPI 2.0 Message Signing).', { logDetail: 'FAPI 2.0 MS §5.3: pushed request without a signed request object' });
  if (request.responseMode === undefined || !signedResponseModes.has(request.responseMode)) {
    throw new InvalidRequest('This client must ask for a signed response: response_mode jwt, query.jwt or form_post.jwt (FAPI 2.0 Message Signing).', { logDetail: `FAPI 2.0 MS §5.4: response_mode ${show(request.responseMode ?? 'query')}` });
  }
}

/** SP §5.4: a request object of a client under the profile is signed with PS256, ES256 or EdDSA (`request-object.ts`). */
export function checkFapi2RequestObjectAlgorithm(client: Pick<Client, 'fapi2'>, alg: string): void {
  if (underProfile(client) && !fapi2ClientAlgorithms.includes(alg)) {
    throw new InvalidRequestObject('The request object\'s signing algorithm is not allowed (FAPI 2.0: PS256, ES256 or EdDSA).', { logDetail: `FAPI 2.0 SP §5.4: request object alg ${show(alg)}` });
  }
}

/**
 * SP §5.4: a DPoP proof of a client under the profile, at the token endpoint and at PAR, is
 * signed with PS256, ES256 or EdDSA (`token.ts`, `par.ts`, once the client authenticated: the
 * proof itself was checked before, against `dpop.signingAlgValues`).
 */
export function checkFapi2DpopAlgorithm(client: Pick<Client, 'fapi2' | 'clientId'>, alg: string | undefined): void {
  if (underProfile(client) && alg !== undefined && !fapi2ClientAlgorithms.includes(alg)) {
    throw new InvalidDpopProof('The DPoP proof\'s signing algorithm is not allowed (FAPI 2.0: PS256, ES256 or EdDSA).', { logDetail: `FAPI 2.0 SP §5.4: DPoP proof alg ${show(alg)} (client "${client.clientId}")` });
  }
}

/**
 * SP §5.3.2.1: only sender-constrained access tokens (DPoP, RFC 9449, or mutual TLS, RFC 8705).
 * At the token endpoint (`token.ts`), once the client authenticated and unless its own settings
 * bound the tokens already (`requireCertificateBoundTokens`, `mtls.certificateBoundAccessTokens`):
 * a request without a DPoP
 * proof binds its tokens to the TLS client certificate it came with (whether or not the client
 * authenticated with it), and a request with neither is refused. Returns the certificate
 * thumbprint to bind, when the binding is the profile's doing.
 */
export function fapi2SenderConstraint(
  client: Pick<Client, 'fapi2' | 'clientId'>,
  request: { readonly dpop: boolean; readonly certificateThumbprint: string | undefined },
): { readonly 'x5t#S256': string } | undefined {
  if (!underProfile(client) || request.dpop) return undefined;
  if (request.certificateThumbprint !== undefined) return { 'x5t#S256': request.certificateThumbprint };
  throw new InvalidRequest('This client\'s tokens must be sender-constrained: send a DPoP proof or a TLS client certificate (FAPI 2.0).', { logDetail: `FAPI 2.0 SP §5.3.2.1: client "${client.clientId}" sent neither a DPoP proof nor a client certificate` });
}
