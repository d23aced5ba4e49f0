/**
 * Mints every token the service issues: access tokens (RFC 9068 JWTs or reference handles),
 * refresh tokens and ID tokens. Grants decide who the subject is; only this module decides
 * what a token says.
 *
 * `prepare` signs and builds but stores nothing: it returns the records to store, and the token
 * endpoint stores them in one transaction with the one-time grant the request spends
 * (`Store.commit`). A JWT signed for a request whose commit fails is never returned.
 */
import { rotatesRefreshTokens } from '../config/fapi2-profile.js';
import type { Client, ResolvedConfig } from '../config/schema.js';
import type { Clock, JsonValue } from '../sdk/contracts.js';
import type { Confirmation } from '../sdk/dpop.js';
import type { PersistedGrant, Store } from '../store/store.js';
import type { KeyRing } from './keys/key-ring.js';
import type { IdTokenIssuer } from './id-token-issuer.js';
import type { RefreshTokenService } from './refresh-tokens.js';
import { offlineAccess } from './scopes.js';
import { newHandle, newTokenId } from './handles.js';
import { familyOfSpentGrant, newFamilyId, timeOrderedFamilies, type FamilyFormat, type SpendsFamily } from './grant-family.js';
import { tracingOff, type Tracing } from '../tracing/tracing.js';
import { signToken } from './keys/signing-key.js';
import { audienceOf } from '../sdk/resources.js';
import type { AccessTarget } from './access-target.js';
import { authenticationClaims } from './authentication-claims.js';

/** Claims a grant can never set: the issuer owns them. */
const registeredClaims = new Set(['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'client_id', 'scope', 'auth_time', 'acr', 'amr', 'idp', 'cnf']);
/** Response members a grant's custom parameters can never override. */
const standardResponseMembers = new Set(['access_token', 'token_type', 'expires_in', 'scope', 'refresh_token', 'id_token']);

export interface TokenResponse {
  access_token: string;
  /** `DPoP` for a token bound to the request's DPoP key (RFC 9449 §5). */
  token_type: 'Bearer' | 'DPoP' | 'N_A';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
  [custom: string]: JsonValue | undefined;
}

export interface IssueRequest {
  client: Client;
  /** The grant type of the request (kept with a refresh token). */
  grantType: string;
  grant: SpendsFamily;
  /** The grant's scopes: the refresh token's and the ID token's, and the access token's unless `target` narrows them. */
  scopes: readonly string[];
  /** RFC 8707: the APIs the access token is for and its scopes, when the request named resources. */
  target?: AccessTarget;
  customResponse?: Readonly<Record<string, JsonValue>>;
  /**
   * The key the access token is bound to (RFC 7800 `cnf`): `jkt` for DPoP (RFC 9449 §6),
   * `x5t#S256` for a client certificate (RFC 8705 §3.1). JWTs carry it, reference tokens keep it.
   */
  cnf?: Confirmation;
}

/** A token response not yet given out, and the records to store before it is. */
export interface PreparedIssuance {
  readonly response: TokenResponse;
  readonly records: readonly PersistedGrant[];
}

export interface TokenIssuer {
  /** Builds the response and the records it needs stored; stores nothing. */
  prepare(request: IssueRequest): Promise<PreparedIssuance>;
  /** Builds and signs (or stores) an access token only. */
  issueAccessToken(request: IssueRequest): Promise<{ token: string; expiresIn: number }>;
}

export interface TokenIssuerDeps {
  config: Pick<ResolvedConfig, 'apiResources' | 'issuer' | 'signing'>;
  keyRing: KeyRing;
  store: Store;
  clock: Clock;
  refreshTokens: RefreshTokenService;
  idTokens: IdTokenIssuer;
  /** A span around each signature; default none. */
  tracing?: Tracing;
  /** The grant-family format this node writes (`familyFormatOf`, src/oauth/grant-family.ts); default time-ordered (a memory store's). */
  families?: FamilyFormat;
}

export function createTokenIssuer({ config, keyRing, store, clock, refreshTokens, idTokens, tracing = tracingOff, families = timeOrderedFamilies }: TokenIssuerDeps): TokenIssuer {
  // Each API by its audience identifier (RFC 8707: its `uri`, else its name), and any name or
  // identifier a grant's `audience` may use mapped to that identifier.
  const resourcesByScope = new Map<string, string[]>();
  const identifierOf = new Map<string, string>();
  for (const r of config.apiResources) {
    const id = audienceOf(r);
    identifierOf.set(r.name, id).set(id, id);
    for (const s of r.scopes) resourcesByScope.set(s, [...(resourcesByScope.get(s) ?? []), id]);
  }
  // RFC 9068 §2.2 requires `aud`; tokens with no API scope get the issuer's own resource audience.
  const fallbackAudience = `${config.issuer}/resources`;
  const alg = config.signing.accessTokenAlgorithm;

  function audienceFor(scopes: readonly string[], limit: readonly string[] | undefined): string | string[] {
    const only = limit?.map((a) => identifierOf.get(a) ?? a);
    const aud = new Set<string>();
    for (const s of scopes) for (const r of resourcesByScope.get(s) ?? []) if (!only || only.includes(r)) aud.add(r);
    if (aud.size === 0) return fallbackAudience;
    return aud.size === 1 ? [...aud][0]! : [...aud];
  }

  function buildAccessToken(
    { client, grant, scopes: grantScopes, target, cnf }: IssueRequest,
    familyId: string | undefined,
  ): { token: string | Promise<string>; expiresIn: number; record?: PersistedGrant } {
    const scopes = target?.scopes ?? grantScopes;
    const now = Math.floor(clock.now() / 1000);
    const expiresIn = client.accessTokenLifetime;
    const claims: Record<string, JsonValue> = {};
    for (const [name, value] of Object.entries(grant.claims ?? {})) if (!registeredClaims.has(name)) claims[name] = value;
    Object.assign(claims, {
      iss: config.issuer,
      sub: grant.subject.id,
      aud: audienceFor(scopes, target?.audience ?? grant.audience),
      client_id: client.clientId,
      scope: scopes.join(' '),
      iat: now,
      nbf: now,
      exp: now + expiresIn,
      jti: newTokenId(),
    });
    if (grant.subject.kind === 'user') Object.assign(claims, authenticationClaims(grant.subject));
    if (cnf !== undefined) claims.cnf = { ...cnf };

    if (client.accessTokenType === 'reference') {
      const handle = newHandle();
      const record: PersistedGrant = {
        key: handle,
        type: 'reference_token',
        clientId: client.clientId,
        subjectId: grant.subject.id,
        sessionId: familyId,
        createdAt: now * 1000,
        expiresAt: (now + expiresIn) * 1000,
        consumedAt: undefined,
        data: JSON.stringify(claims),
      };
      return { token: handle, expiresIn, record };
    }
    const key = keyRing.signingKey(alg);
    // RFC 9068 §2.1: typ "at+jwt" tells access tokens from ID tokens and other JWTs.
    const token = signToken(tracing, 'sign access_token', key, { alg, typ: 'at+jwt', kid: key.kid }, claims);
    return { token, expiresIn };
  }

  async function prepare(request: IssueRequest): Promise<PreparedIssuance> {
    const { client, grantType, grant, scopes, customResponse } = request;
    const user = grant.subject.kind === 'user' ? grant.subject : undefined;
    // A token that represents a user can be refreshed; a client-only token never. A refresh
    // (the grant continues a family) always rotates, whatever scope this request narrowed to.
    const refreshable = grant.sessionId !== undefined || (scopes.includes(offlineAccess) && client.allowOfflineAccess && user !== undefined);
    // Tokens that can be revoked together share a family; a lone client token needs none (and
    // stays out of the session index). A spent code's is the one its record names.
    const familyId = grant.sessionId ?? (grant.consumes !== undefined
      ? grant.consumesFamily ?? familyOfSpentGrant(grant.consumes, families.timeOrdered)
      : refreshable ? newFamilyId(families.timeOrdered) : undefined);
    const records: PersistedGrant[] = [];
    const access = buildAccessToken(request, familyId);
    if (access.record) records.push(access.record);
    // A string unless the signature runs on a signing thread: the default path awaits nothing.
    const accessToken = typeof access.token === 'string' ? access.token : await access.token;
    const response: TokenResponse = {
      access_token: accessToken,
      token_type: request.cnf?.jkt === undefined ? 'Bearer' : 'DPoP',
      expires_in: access.expiresIn,
      // RFC 6749 §5.1: the access token's scope, narrowed to its APIs when `resource` named them.
      scope: (request.target?.scopes ?? scopes).join(' '),
    };
    // FAPI 2.0 (`fapi2-profile.ts`): a refresh keeps the presented refresh token, so none is issued.
    if (refreshable && (grantType !== 'refresh_token' || rotatesRefreshTokens(client))) {
      // A public client's refresh token is bound like its access token: to the DPoP key (RFC 9449
      // §5) and to the client certificate (RFC 8705 §4). A confidential client's is bound by its
      // authentication already.
      const bind = client.requireClientSecret ? undefined : request.cnf;
      const refresh = await refreshTokens.prepare({ client, grantType, grant, scopes, familyId: familyId!, jkt: bind?.jkt, x5t: bind?.['x5t#S256'] });
      records.push(...refresh.records);
      response.refresh_token = refresh.handle;
    }
    if (scopes.includes('openid') && user !== undefined) {
      response.id_token = await idTokens.issue({ client, user, scopes, idToken: grant.idToken, accessToken });
    }
    for (const [name, value] of Object.entries(customResponse ?? {})) {
      if (!standardResponseMembers.has(name) && !(name in response)) response[name] = value;
    }
    return { response, records };
  }

  return {
    prepare,
    async issueAccessToken(request) {
      const { token, expiresIn, record } = buildAccessToken(request, request.grant.sessionId);
      if (record) await store.add(record);
      return { token: await token, expiresIn };
    },
  };
}

