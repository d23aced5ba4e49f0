/**
 * Signed request objects (RFC 9101, JAR): the `request` parameter at the authorization endpoint
 * and at PAR, a JWT the client signed with a key it registered (its `X509CertificateBase64` or
 * `JsonWebKey` secrets; the plugin that reads those verifies the signature, `ClientSignatureVerifier`).
 * One check after another, each with its section; the `jti` is recorded last, so neither a
 * forged nor a stale object can burn one. The answer is the object's own parameters: §6.3, only
 * they count, whatever the query said beside them.
 *
 * Decisions where the RFC leaves them to the server:
 * - `typ` (§10.8): `oauth-authz-req+jwt` (§4), or absent or `JWT` for clients that do not type
 *   their objects; any other type (a client assertion's `client-authentication+jwt`, a DPoP proof)
 *   is another kind of JWT and refused.
 * - `exp` is required and at most `requestObjects.maxLifetime` after `nbf` (or `iat`, or now):
 *   FAPI 2.0 Message Signing's 60 minutes by default. `iss` must be the client and `aud` the issuer.
 * - `jti` is optional (RFC 9101 does not require it); one that comes is accepted once, until `exp`.
 */
import type { Client, ResolvedConfig } from '../config/schema.js';
import type { ClientSignatureVerifier, Clock } from '../sdk/contracts.js';
import { InvalidRequestObject } from '../oauth/errors.js';
import { joinRepeated, repeatableParameters } from '../oauth/form-params.js';
import { isJwsAlgorithm, MalformedJws, parseCompactJws, type CompactJws, type JwsAlgorithm } from '../sdk/jws.js';
import { timeOrderedKey } from '../sdk/store-keys.js';
import { isDuplicateKeyError, type Store } from '../store/store.js';
import { checkFapi2RequestObjectAlgorithm } from '../config/fapi2-profile.js';

/** RFC 9101 §10.8: the media type of a request object, without its `application/` prefix. */
export const requestObjectTyp = 'oauth-authz-req+jwt';
/** A request object of ours is a few hundred bytes of parameters and one signature (RSA-4096 at most). */
export const requestObjectMaxLength = 16_384;
const maxJtiLength = 256;
const recordType = 'request_object_jti';
/** RFC 7519 §4.1: the JWT's own claims, which are not authorization request parameters. */
const jwtClaims: ReadonlySet<string> = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti', 'sub']);
/** OIDC Core §5.5 `claims` is a JSON object inside a request object; it is not supported, so it is left out as at the front channel. */
const ignoredObjects: ReadonlySet<string> = new Set(['claims']);

export interface RequestObjectDeps {
  readonly config: Pick<ResolvedConfig, 'issuer' | 'requestObjects'>;
  /** Plugins' verifiers of client signatures (`private-key-jwt`'s, for its key secrets). */
  readonly verifiers: readonly ClientSignatureVerifier[];
  readonly store: Pick<Store, 'add'>;
  readonly clock: Clock;
}

/** Reads a `request` for `client`: its parameters, or an `InvalidRequestObject` (whose `logDetail` says which check failed). */
export type RequestObjectReader = (requestObject: string, client: Client) => Promise<Map<string, string>>;

const refuse = (logDetail: string, description = 'The request object is invalid.'): never => {
  throw new InvalidRequestObject(description, { logDetail });
};

const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

function isRequestObjectTyp(typ: unknown): boolean {
  if (typ === undefined) return true;
  if (typeof typ !== 'string') return false;
  // RFC 7515 §4.1.9: compared without case, and the `application/` prefix may be left out.
  const type = typ.toLowerCase().replace(/^application\//, '');
  return type === requestObjectTyp || type === 'jwt';
}

export function createRequestObjectReader(deps: RequestObjectDeps): RequestObjectReader {
  const { issuer } = deps.config;
  const { signingAlgValues, maxLifetime, clockSkew } = deps.config.requestObjects;
  const allowed: ReadonlySet<string> = new Set(signingAlgValues);

  function parse(requestObject: string): CompactJws {
    if (requestObject.length > requestObjectMaxLength) refuse(`request object longer than ${requestObjectMaxLength}`);
    // RFC 9101 §4: signed, never encrypted here (a JWE has five parts, which the reader refuses).
    try {
      return parseCompactJws(requestObject);
    } catch (err) {
      if (err instanceof MalformedJws) return refuse(`malformed request object: ${err.message}`);
      throw err;
    }
  }

  function checkHeader(jws: CompactJws): JwsAlgorithm {
    const { alg, typ } = jws.header;
    // RFC 9101 §6.1 allows unsigned objects; an unsigned object proves nothing a query does not (and a
    // MAC keyed with a public key would prove nothing at all), so only the listed asymmetric ones count.
    if (alg === 'none') refuse('alg none: the request object is not signed', 'The request object must be signed.');
    if (!isJwsAlgorithm(alg) || !allowed.has(alg)) refuse(`alg ${show(alg)} is not in requestObjects.signingAlgValues`, 'The request object\'s signing algorithm is not supported.');
    if (!isRequestObjectTyp(typ)) refuse(`typ ${show(typ)} is not ${requestObjectTyp} (nor absent or JWT)`);
    return alg as JwsAlgorithm;
  }

  /** RFC 9101 §6.2: the signature, with a key the client registered (unexpired secrets only). */
  async function checkSignature(jws: CompactJws, alg: JwsAlgorithm, client: Client): Promise<void> {
    const now = deps.clock.now();
    const reasons: string[] = [];
    for (const verifier of deps.verifiers) {
      const secrets = client.clientSecrets.filter((s) => verifier.secretTypes.includes(s.type) && (s.expiresAt === undefined || s.expiresAt > now));
      if (secrets.length === 0) continue;
      const result = await verifier.verify(jws, alg, secrets);
      if (result.success) return;
      reasons.push(result.reason);
    }
    if (reasons.length === 0) refuse(`client ${client.clientId} has no key secret a request object could be verified with`, 'The client has no registered key that could verify the request object.');
    refuse(`signature: ${reasons.join('; ')}`);
  }

  /** RFC 9101 §4 and §10.2 (`iss`, `aud`), RFC 7519 §4.1.4–5 (`exp`, `nbf`), §5 (`client_id`). */
  function checkClaims(claims: Readonly<Record<string, unknown>>, client: Client): { exp: number; jti: string | undefined } {
    const { iss, aud, exp, nbf, iat, jti, client_id: clientId } = claims;
    if (iss !== client.clientId) refuse(`iss ${show(iss)} is not the client`);
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (!audiences.includes(issuer)) refuse(`aud ${show(aud)} does not name the issuer`);
    if (clientId !== client.clientId) refuse(`client_id ${show(clientId)} in the object is not the request's`, 'The client_id in the request object does not match the request.');
    const now = deps.clock.now() / 1000;
    if (typeof exp !== 'number' || !Number.isFinite(exp)) return refuse('exp is missing or not a number');
    if (exp <= now - clockSkew) refuse(`expired at ${exp}`, 'The request object has expired.');
    if (nbf !== undefined && (typeof nbf !== 'number' || !Number.isFinite(nbf))) refuse('nbf is not a number');
    if (typeof nbf === 'number' && nbf > now + clockSkew) refuse(`nbf ${nbf} is in the future`, 'The request object is not yet valid.');
    if (iat !== undefined && (typeof iat !== 'number' || !Number.isFinite(iat))) refuse('iat is not a number');
    const start = typeof nbf === 'number' ? nbf : typeof iat === 'number' ? iat : now;
    if (exp - start > maxLifetime + clockSkew) refuse(`lifetime ${Math.round(exp - start)} s is over ${maxLifetime}`, 'The request object lives too long.');
    if (jti !== undefined && (typeof jti !== 'string' || jti.length === 0 || jti.length > maxJtiLength)) refuse(`jti is not a string of 1 to ${maxJtiLength} characters`);
    return { exp, jti: jti as string | undefined };
  }

  /** The object's parameters as the front channel would carry them: text values, the JWT's own claims left out. */
  function parametersOf(claims: Readonly<Record<string, unknown>>): Map<string, string> {
    const params = new Map<string, string>();
    for (const [name, value] of Object.entries(claims)) {
      if (jwtClaims.has(name)) continue;
      // RFC 9101 §4: an object names no other object.
      if (name === 'request' || name === 'request_uri') refuse(`the object contains ${name}`);
      if (typeof value === 'string') params.set(name, value);
      else if (typeof value === 'number' || typeof value === 'boolean') params.set(name, String(value));
      // RFC 8707 §2 with RFC 9101: several `resource` values are a JSON array of strings.
      else if (repeatableParameters.has(name) && Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v !== '' && !v.includes('\n'))) {
        params.set(name, joinRepeated(value as string[]));
      } else if (!ignoredObjects.has(name)) refuse(`parameter ${show(name)} is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : 'an object'}`, 'A parameter in the request object is not a string.');
    }
    return params;
  }

  /** RFC 9101 §10.2 (replay): the same object is refused until it expires. */
  async function spendJti(client: Client, jti: string, exp: number): Promise<void> {
    const now = deps.clock.now();
    try {
      await deps.store.add({
        key: timeOrderedKey(exp * 1000, `request_object_jti:${client.clientId}:${jti}`), type: recordType, clientId: client.clientId,
        subjectId: undefined, sessionId: undefined, createdAt: now, expiresAt: Math.ceil((exp + clockSkew) * 1000), consumedAt: undefined, data: '{}',
      });
    } catch (err) {
      if (isDuplicateKeyError(err)) refuse(`jti ${show(jti)} was already used (replay)`, 'The request object was already used.');
      throw err;
    }
  }

  return async function readRequestObject(requestObject, client) {
    const jws = parse(requestObject);
    const alg = checkHeader(jws);
    checkFapi2RequestObjectAlgorithm(client, alg);
    await checkSignature(jws, alg, client);
    const { exp, jti } = checkClaims(jws.claims, client);
    const params = parametersOf(jws.claims);
    if (jti !== undefined) await spendJti(client, jti, exp);
    return params;
  };
}
