/**
 * Validates a DPoP proof (RFC 9449 §4.3) for a request of the service: the token endpoint, where
 * a valid proof binds the issued tokens to its key, and the service's own protected resources
 * (UserInfo), where it must accompany a bound access token with that token's hash in `ath`.
 *
 * The checks run cheapest first; the signature is the one expensive step, and the `jti` is
 * recorded in the store last, so neither a forged nor a stale proof can burn a `jti`. At the
 * token and PAR endpoints the record waits longer still (`verify`, then `spend`): until the
 * client has authenticated and no limit refused the request, so a caller nobody knows, with a
 * proof of its own making, writes nothing (issue 33, item 4). Every refusal says only "invalid
 * DPoP proof" to the caller; the reason goes to the log.
 */
import { createPublicKey, type KeyObject, type JsonWebKey } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import type { ResolvedConfig } from '../config/schema.js';
import type { Clock } from '../sdk/contracts.js';
import { accessTokenHash, type DpopProofSummary } from '../sdk/dpop.js';
import { InvalidDpopProof, UseDpopNonce, type OAuthError } from '../sdk/errors.js';
import { decodeJwsHeader, isJwsAlgorithm, MalformedJws, splitCompactJws, verifyCompactJws, withDecodedHeader, type CompactJws, type JwsAlgorithm } from '../sdk/jws.js';
import { isDuplicateKeyError } from '../sdk/store-errors.js';
import { timeOrderedKey } from '../sdk/store-keys.js';
import type { Store } from '../store/store.js';
import { comparableHtu } from './dpop-htu.js';
import type { DpopNonces } from './dpop-nonces.js';

/** A request a proof may accompany. */
export interface DpopRequest {
  /** The `DPoP` header; several sent are one value joined with ", " (Node's `headers`), or several values. `undefined` when there is none. */
  readonly headers: readonly string[] | undefined;
  readonly method: string;
  /** The service's public URL of the endpoint (issuer + path). */
  readonly url: string;
  /** At a protected resource: the access token the proof must name in `ath`. */
  readonly accessToken?: string;
}

/** Where the proof was sent: the answers differ (RFC 9449 §5: 400; §7.1 and §9: 401 with a challenge). */
export type DpopContext = 'token' | 'resource';

/** A proof that passed every check but the replay check. */
export interface VerifiedDpopProof {
  readonly summary: DpopProofSummary;
  /**
   * RFC 9449 §11.1: records the `jti`; the single-use insert is itself the replay check, atomic
   * on every node. Throws the `invalid_dpop_proof` error to answer when the proof was used before.
   */
  spend(): Promise<void>;
}

export interface DpopProofValidator {
  /** The accepted `alg` values, as in discovery and in challenges. */
  readonly algorithms: readonly string[];
  readonly nonceRequired: boolean;
  /** Every check but the replay check, writing nothing; `undefined` when the request has no `DPoP` header. Throws the OAuth error to answer. */
  verify(request: DpopRequest, context: DpopContext): Promise<VerifiedDpopProof | undefined>;
  /** `verify` and `spend` at once: the proof's key thumbprint and `ath`; `undefined` without a `DPoP` header. */
  check(request: DpopRequest, context: DpopContext): Promise<DpopProofSummary | undefined>;
  /** The nonce to send in `DPoP-Nonce` now, when nonces are required. */
  currentNonce(): Promise<string | undefined>;
}

class ProofRejected extends Error {}
/** A checked proof, with what its replay record is made of. */
interface Proof {
  readonly summary: DpopProofSummary;
  readonly jti: string;
  readonly iat: number;
}

class NonceNeeded extends Error {}

const reject = (reason: string): never => {
  throw new ProofRejected(reason);
};

/** A proof the JWS reader refused: the reader's message is the log's reason. */
const rejectMalformed = (err: unknown): never => reject(err instanceof MalformedJws ? `malformed proof: ${err.message}` : 'malformed proof');

const maxProofLength = 8192;
const maxJtiLength = 256;
/** RFC 7517/7518 private key members: a proof carries the public key only (RFC 9449 §4.3 check 7). */
const privateMembers = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const curveOf: Readonly<Partial<Record<JwsAlgorithm, string>>> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521', EdDSA: 'Ed25519', Ed25519: 'Ed25519' };
const minRsaBits = 2048;
/** Checked headers kept: a client signs many proofs with one key, and so sends one header. */
const maxCachedHeaders = 1000;

/** What a proof's JOSE header settles: checked once per distinct header part. */
interface CheckedHeader {
  readonly header: Readonly<Record<string, unknown>>;
  readonly alg: JwsAlgorithm;
  readonly key: KeyObject;
  /** RFC 7638 thumbprint of the key (RFC 9449 §6.1). */
  readonly jkt: string;
}

function keyFits(jwk: Record<string, unknown>, key: KeyObject, alg: JwsAlgorithm): boolean {
  if (jwk.alg !== undefined && jwk.alg !== alg) return false;
  if (alg.startsWith('RS') || alg.startsWith('PS')) {
    return jwk.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= minRsaBits;
  }
  return (jwk.kty === 'EC' || jwk.kty === 'OKP') && jwk.crv === curveOf[alg];
}

export function createDpopProofValidator({ config, store, clock, nonces }: {
  config: Pick<ResolvedConfig, 'dpop' | 'issuer' | 'mtls'>;
  store: Store;
  clock: Clock;
  nonces: DpopNonces;
}): DpopProofValidator {
  const { signingAlgValues, proofMaxAge, clockSkew, requireNonce } = config.dpop;
  const allowed: ReadonlySet<string> = new Set(signingAlgValues);
  const algs = signingAlgValues.join(' ');
  // By the header's base64url text: the same text is the same typ, alg and jwk, so a header
  // that passed checks 4, 5 and 7 once passes them again; only the signature is per proof.
  const checkedHeaders = new Map<string, CheckedHeader>();
  // The service's own endpoint URLs, a handful: each one's accepted spellings parsed once. With
  // mTLS endpoint aliases on another base URL (RFC 8705 §5), a client may reach an endpoint at
  // its alias and sign that as htu (RFC 9449 §4.3 check 9: the URI the request was sent to);
  // both URLs are the service's own, so either is accepted.
  const { issuer } = config;
  const aliasBase = config.mtls.endpointAliasesBaseUrl;
  const endpointHtus = new Map<string, ReadonlySet<string>>();
  const htuFits = (htu: string, url: string): boolean => {
    let accepted = endpointHtus.get(url);
    if (accepted === undefined) {
      const spellings = aliasBase !== issuer && url.startsWith(`${issuer}/`) ? [url, aliasBase + url.slice(issuer.length)] : [url];
      accepted = new Set(spellings.map(comparableHtu).filter((u): u is string => u !== undefined));
      endpointHtus.set(url, accepted);
    }
    const comparable = comparableHtu(htu);
    return comparable !== undefined && accepted.has(comparable);
  };

  async function checkHeader(part: string): Promise<CheckedHeader> {
    let header: Record<string, unknown>;
    try {
      header = decodeJwsHeader(part);
    } catch (err) {
      return rejectMalformed(err);
    }
    // Checks 4 and 5: the type, and an asymmetric algorithm this service accepts.
    if (header.typ !== 'dpop+jwt') reject('typ is not dpop+jwt');
    if (!isJwsAlgorithm(header.alg) || !allowed.has(header.alg)) reject(`alg ${JSON.stringify(header.alg)?.slice(0, 20)} is not accepted`);
    const alg = header.alg as JwsAlgorithm;
    // Check 7: a public key that fits the algorithm.
    const jwk = header.jwk;
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return reject('jwk is missing or not an object');
    const members = jwk as Record<string, unknown>;
    const privateMember = privateMembers.find((m) => m in members);
    if (privateMember !== undefined) reject(`jwk has the private member "${privateMember}"`);
    if (members.kty !== 'RSA' && members.kty !== 'EC' && members.kty !== 'OKP') reject('jwk kty is not RSA, EC or OKP');
    let key: KeyObject;
    let jkt: string;
    try {
      key = createPublicKey({ key: members as JsonWebKey, format: 'jwk' });
      jkt = await calculateJwkThumbprint(members as Parameters<typeof calculateJwkThumbprint>[0], 'sha256');
    } catch {
      return reject('jwk is not a usable public key');
    }
    if (!keyFits(members, key, alg)) reject(`jwk does not fit alg ${alg}`);
    if (checkedHeaders.size >= maxCachedHeaders) checkedHeaders.delete(checkedHeaders.keys().next().value!);
    const checked = { header, alg, key, jkt };
    checkedHeaders.set(part, checked);
    return checked;
  }

  async function validate(request: DpopRequest): Promise<Proof | undefined> {
    const values = request.headers;
    if (values === undefined || values.length === 0) return undefined;
    // Check 1: one header; a JWT has no comma, so a comma means two values folded into one.
    if (values.length > 1 || values[0]!.includes(',')) reject('more than one DPoP header');
    const proof = values[0]!.trim();
    if (proof.length > maxProofLength) reject('proof is too long');
    let parts;
    try {
      parts = splitCompactJws(proof);
    } catch (err) {
      return rejectMalformed(err);
    }
    const { header, alg, key, jkt } = checkedHeaders.get(parts.header) ?? (await checkHeader(parts.header));
    let jws: CompactJws;
    try {
      jws = withDecodedHeader(parts, header);
    } catch (err) {
      return rejectMalformed(err);
    }
    // Check 6.
    if (!verifyCompactJws(jws, alg, key)) reject('signature does not verify with the proof jwk');
    const { claims } = jws;
    // Check 3: the claims the proof must have.
    const { jti, htm, htu, iat, ath, nonce } = claims;
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > maxJtiLength) reject('jti is missing or not a string of 1 to 256 characters');
    // Checks 8 and 9.
    if (htm !== request.method) reject('htm does not match the request method');
    // The exact URL (what clients send) needs no parsing; any other spelling, or the mTLS alias, is compared parsed.
    if (typeof htu !== 'string' || (htu !== request.url && !htuFits(htu, request.url))) reject('htu does not match the endpoint URL');
    // Check 11: a short-lived proof.
    const now = clock.now() / 1000;
    if (typeof iat !== 'number' || !Number.isFinite(iat)) reject('iat is missing or not a number');
    if ((iat as number) < now - proofMaxAge) reject('iat is too old');
    if ((iat as number) > now + clockSkew) reject('iat is in the future');
    // Check 12: the access token the proof accompanies.
    if (ath !== undefined && typeof ath !== 'string') reject('ath is not a string');
    if (request.accessToken !== undefined) {
      if (ath === undefined) reject('ath is missing');
      if (ath !== accessTokenHash(request.accessToken)) reject('ath does not match the access token');
    }
    // Check 10: only once the proof is otherwise good, so a nonce is never handed to a forger's retry loop.
    if (requireNonce) {
      if (nonce === undefined) throw new NonceNeeded('proof has no nonce');
      if (typeof nonce !== 'string' || !(await nonces.isFresh(nonce))) throw new NonceNeeded('proof nonce is unknown or stale');
    }
    return { summary: { jkt, ath: ath as string | undefined, alg }, jti: jti as string, iat: iat as number };
  }

  /**
   * RFC 9449 §11.1: a proof is accepted once, on every node, for as long as its `iat` is accepted.
   * The record is the key, the `jti` and the `iat`, which a replayed proof repeats; `iat` goes in
   * front as a time, so these inserts (one per request) sit together in the store's index instead
   * of each on a random page. A proof with a used `jti` and another `iat` is a new record, and
   * only the holder of the private key can sign one (docs/guides/sender-constrained-tokens.md).
   */
  async function recordJti(jkt: string, jti: string, iat: number): Promise<void> {
    const nowMs = clock.now();
    try {
      await store.add({
        key: timeOrderedKey(iat * 1000, `dpop_jti:${jkt}:${jti}`), type: 'dpop_jti', clientId: '', subjectId: undefined, sessionId: undefined,
        createdAt: nowMs, expiresAt: Math.ceil((iat + proofMaxAge + 1) * 1000), consumedAt: undefined, data: '{}',
      });
    } catch (err) {
      if (isDuplicateKeyError(err)) reject('jti was already used (replay)');
      throw err;
    }
  }

  async function answer(err: ProofRejected | NonceNeeded, context: DpopContext): Promise<OAuthError> {
    const resource = context === 'resource';
    if (err instanceof NonceNeeded) {
      const headers: Record<string, string> = { 'DPoP-Nonce': (await nonces.current()) };
      if (resource) headers['WWW-Authenticate'] = `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", algs="${algs}"`;
      return new UseDpopNonce('The DPoP proof must carry the server nonce.', { logDetail: err.message, headers, ...(resource ? { status: 401 } : {}) });
    }
    return new InvalidDpopProof('The DPoP proof is invalid.', {
      logDetail: err.message,
      ...(resource ? { status: 401, headers: { 'WWW-Authenticate': `DPoP error="invalid_dpop_proof", error_description="The DPoP proof is invalid", algs="${algs}"` } } : {}),
    });
  }

  async function answering<T>(context: DpopContext, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (err instanceof ProofRejected || err instanceof NonceNeeded) throw await answer(err, context);
      throw err;
    }
  }

  async function verify(request: DpopRequest, context: DpopContext): Promise<VerifiedDpopProof | undefined> {
    const proof = await answering(context, () => validate(request));
    if (proof === undefined) return undefined;
    return {
      summary: proof.summary,
      spend: () => answering(context, () => recordJti(proof.summary.jkt, proof.jti, proof.iat)),
    };
  }

  return {
    algorithms: signingAlgValues,
    nonceRequired: requireNonce,
    verify,
    async check(request, context) {
      const proof = await verify(request, context);
      await proof?.spend();
      return proof?.summary;
    },
    async currentNonce() {
      return requireNonce ? nonces.current() : undefined;
    },
  };
}
