/**
 * What one access-token signature costs on this machine, measured in the benchmark's own
 * process with the service's signer (node:crypto, src/sdk/jws.ts) on an access token's header
 * and claims: the part of a JWT row's CPU per request that no change to the service can remove.
 */
import { generateKeyPairSync } from 'node:crypto';
import { signCompactJws } from '../../src/sdk/jws.js';

function cpuMicrosPerSignature(alg: 'ES256' | 'RS256', count: number): number {
  const { privateKey } = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sign = signCompactJws(privateKey, alg);
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: 'http://127.0.0.1:8080', exp: now + 3600, aud: 'api1', sub: 'm2m', client_id: 'm2m', iat: now, jti: 'x'.repeat(22), scope: 'api1.read' };
  for (let i = 0; i < count / 10; i++) sign({ alg, typ: 'at+jwt', kid: 'k' }, claims);
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) sign({ alg, typ: 'at+jwt', kid: 'k' }, claims);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

/** CPU µs per signature, RSA-2048 and P-256, as the service's default keys. */
export function signatureCosts(): { ES256: number; RS256: number } {
  return { ES256: cpuMicrosPerSignature('ES256', 4000), RS256: cpuMicrosPerSignature('RS256', 1000) };
}
