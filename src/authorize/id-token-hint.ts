/**
 * Reads an `id_token_hint` (OIDC RP-Initiated Logout 1.0 §2): an ID token this service signed,
 * which may have expired (a user often logs out long after signing in), so only its signature
 * and issuer are checked. Anything else is no hint at all.
 */
import { compactVerify, decodeProtectedHeader } from 'jose';
import type { KeyRing } from '../oauth/keys/key-ring.js';

export interface IdTokenHint {
  readonly sub: string;
  readonly clientId: string;
  readonly sid: string | undefined;
}

/**
 * `algorithms`: those ID tokens are signed with (`signing.idTokenAlgorithms`); the hint's `alg`
 * must be one of them and the algorithm of the key its `kid` names.
 */
export async function readIdTokenHint(token: string, issuer: string, keyRing: Pick<KeyRing, 'verificationKey'>, algorithms: readonly string[]): Promise<IdTokenHint | undefined> {
  if (token.length > 16_384) return undefined;
  try {
    const { kid, alg, typ } = decodeProtectedHeader(token);
    // An access token (typ at+jwt, RFC 9068) is signed by the same keys; it is no ID token.
    if (kid === undefined || alg === undefined || !algorithms.includes(alg) || typ === 'at+jwt') return undefined;
    const key = await keyRing.verificationKey(kid);
    if (key?.alg !== alg) return undefined;
    const { payload } = await compactVerify(token, key.publicKey, { algorithms: [alg] });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    const aud = Array.isArray(claims.aud) && claims.aud.length === 1 ? claims.aud[0] : claims.aud;
    if (claims.iss !== issuer || typeof claims.sub !== 'string' || typeof aud !== 'string') return undefined;
    return { sub: claims.sub, clientId: aud, sid: typeof claims.sid === 'string' ? claims.sid : undefined };
  } catch {
    return undefined;
  }
}
