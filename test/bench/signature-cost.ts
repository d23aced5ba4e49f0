/**
 * What one access-token signature, and one check of it, cost on this machine, measured in the
 * benchmark's own process with the service's signer and verifier (node:crypto, src/sdk/jws.ts)
 * on an access token's header and claims: the part of a row's CPU per request that no change
 * to the service can remove. A delegation checks the user's token and signs one; a DPoP
 * request checks the proof's signature besides signing the token.
 */
import { generateKeyPairSync } from 'node:crypto';
import { parseCompactJws, signCompactJws, verifyCompactJws } from '../../src/sdk/jws.js';

type Alg = 'ES256' | 'RS256';

function cpuMicrosEach(count: number, work: () => unknown): number {
  for (let i = 0; i < count / 10; i++) work();
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

function costs(alg: Alg, count: number): { sign: number; verify: number } {
  const { privateKey, publicKey } = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sign = signCompactJws(privateKey, alg);
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: 'http://127.0.0.1:8080', exp: now + 3600, aud: 'api1', sub: 'm2m', client_id: 'm2m', iat: now, jti: 'x'.repeat(22), scope: 'api1.read' };
  const header = { alg, typ: 'at+jwt', kid: 'k' };
  const jws = parseCompactJws(sign(header, claims));
  if (!verifyCompactJws(jws, alg, publicKey)) throw new Error(`the ${alg} signature made for the measurement does not verify`);
  return { sign: cpuMicrosEach(count, () => sign(header, claims)), verify: cpuMicrosEach(count, () => verifyCompactJws(jws, alg, publicKey)) };
}

export interface SignatureCosts {
  /** CPU µs per signature. */
  readonly ES256: number;
  readonly RS256: number;
  /** CPU µs per signature check (the signature alone: the token is parsed once). */
  readonly verify: { readonly ES256: number; readonly RS256: number };
}

/** CPU µs per signature and per check, RSA-2048 and P-256, as the service's default keys. */
export function signatureCosts(): SignatureCosts {
  const es = costs('ES256', 4000);
  const rs = costs('RS256', 1000);
  return { ES256: es.sign, RS256: rs.sign, verify: { ES256: es.verify, RS256: rs.verify } };
}
