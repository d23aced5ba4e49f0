/**
 * DPoP proofs (RFC 9449 §4) for tests, made by hand so a test can break any one part: a key
 * pair, and `proof()` with every header and claim overridable.
 */
import { createHmac, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { accessTokenHash } from '../../src/sdk/dpop.js';
import { signCompactJws } from '../../src/sdk/jws.js';

export interface ProofOptions {
  htm?: string;
  htu: string;
  /** Seconds; default now. */
  iat?: number;
  jti?: string;
  /** The access token the proof accompanies (its hash becomes `ath`). */
  accessToken?: string;
  nonce?: string;
  /** Replace or add header members; `undefined` removes one. */
  header?: Record<string, unknown>;
  /** Replace or add claims; `undefined` removes one. */
  claims?: Record<string, unknown>;
}

export interface DpopKey {
  readonly publicJwk: JWK;
  readonly privateKey: KeyObject;
  readonly jkt: string;
  proof(options: ProofOptions): string;
}

const without = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export async function dpopKey(alg: 'ES256' | 'RS256' | 'PS256' | 'EdDSA' = 'ES256'): Promise<DpopKey> {
  const { publicKey, privateKey } = alg === 'ES256'
    ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
    : alg === 'EdDSA' ? generateKeyPairSync('ed25519') : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  const sign = signCompactJws(privateKey, alg);
  return {
    publicJwk,
    privateKey,
    jkt: await calculateJwkThumbprint(publicJwk, 'sha256'),
    proof(o) {
      const header = without({ typ: 'dpop+jwt', alg, jwk: publicJwk, ...o.header });
      const claims = without({
        jti: o.jti ?? randomUUID(),
        htm: o.htm ?? 'POST',
        htu: o.htu,
        iat: o.iat ?? Math.floor(Date.now() / 1000),
        ...(o.accessToken === undefined ? {} : { ath: accessTokenHash(o.accessToken) }),
        ...(o.nonce === undefined ? {} : { nonce: o.nonce }),
        ...o.claims,
      });
      return sign(header, claims);
    },
  };
}

/** An HS256 "proof": a symmetric algorithm, which RFC 9449 §4.2 forbids. */
export function hmacProof(key: DpopKey, htu: string): string {
  const encode = (v: object): string => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${encode({ typ: 'dpop+jwt', alg: 'HS256', jwk: key.publicJwk })}.${encode({ jti: randomUUID(), htm: 'POST', htu, iat: Math.floor(Date.now() / 1000) })}`;
  return `${input}.${createHmac('sha256', 'secret').update(input).digest('base64url')}`;
}
