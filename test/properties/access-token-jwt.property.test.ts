/**
 * The service's own access tokens coming back (delegation, token exchange, introspection,
 * UserInfo) are verified with node:crypto (src/oauth/token-validator.ts); jose's jwtVerify, with
 * the options the validator used to pass it, is the oracle. For tokens signed by the key ring's
 * keys, or by another key, with headers and claims drawn around every rule (typ, kid, alg, iss,
 * required claims, the lifetime and its 5 s tolerance, claims that are not numbers or not
 * JSON), and with any character of them changed afterwards, both must agree on whether the token
 * is active and, when it is, on its claims.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { decodeProtectedHeader, errors, jwtVerify, type JWK } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../../src/config/schema.js';
import type { KeyRing } from '../../src/oauth/keys/key-ring.js';
import { signingKeyOf, type SigningKey } from '../../src/oauth/keys/signing-key.js';
import { createTokenValidator } from '../../src/oauth/token-validator.js';
import { isNumericDate } from '../../src/sdk/numeric-date.js';
import type { AccessTokenValidation } from '../../src/sdk/contracts.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

const issuer = 'https://issuer.example';
const nowMs = 1_800_000_000_500;
const now = Math.floor(nowMs / 1000);
const clock = { now: () => nowMs };

interface Signer {
  readonly kid: string;
  readonly alg: 'ES256' | 'RS256';
  readonly privateKey: KeyObject;
}

const keys = new Map<string, SigningKey>();
const signers: Signer[] = [];

async function addKey(kid: string, alg: 'ES256' | 'RS256', inRing: boolean): Promise<void> {
  const pair = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  signers.push({ kid, alg, privateKey: pair.privateKey });
  if (inRing) keys.set(kid, await signingKeyOf(kid, alg, pair.privateKey.export({ format: 'jwk' }) as JWK));
}

const keyRing = { verificationKey: async (kid: string) => keys.get(kid) } as unknown as KeyRing;
const validator = createTokenValidator({ config: { issuer } as ResolvedConfig, keyRing, store: createMemoryStore(clock), clock });

/** The validator as it was: jose's jwtVerify, then the NumericDate range check. */
async function oracle(token: string): Promise<AccessTokenValidation> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return { active: false, reason: 'malformed JWT' };
  }
  const key = kid === undefined ? undefined : keys.get(kid);
  if (!key) return { active: false, reason: 'unknown signing key' };
  try {
    const { payload } = await jwtVerify(token, key.publicKey, {
      issuer, typ: 'at+jwt', algorithms: [key.alg], requiredClaims: ['sub', 'client_id', 'exp', 'iat', 'jti'],
      clockTolerance: 5, currentDate: new Date(nowMs),
    });
    const bad = (['exp', 'iat', 'nbf', 'auth_time'] as const).find((c) => payload[c] !== undefined && !isNumericDate(payload[c]));
    return bad ? { active: false, reason: 'range' } : { active: true, claims: payload as never, format: 'jwt' };
  } catch (err) {
    return { active: false, reason: err instanceof errors.JOSEError ? err.code : 'verification failed' };
  }
}

const b64 = (bytes: Buffer | string): string => Buffer.from(bytes).toString('base64url');

function signed(signer: Signer, header: Record<string, unknown>, payload: Buffer): string {
  const input = `${b64(JSON.stringify(header))}.${b64(payload)}`;
  const key = signer.alg === 'ES256' ? { key: signer.privateKey, dsaEncoding: 'ieee-p1363' as const } : signer.privateKey;
  return `${input}.${b64(sign('sha256', Buffer.from(input), key))}`;
}

/**
 * Mostly `usual` (so that some tokens pass every check), else one of `others` or left out: a
 * token then breaks a rule or two at a time.
 */
const mostly = <T,>(usual: T, ...others: T[]) =>
  fc.oneof({ weight: 12, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: fc.constantFrom<T | undefined>(undefined, ...others) });
/** Left out mostly, else one of `values`. */
const rarely = <T,>(...values: T[]) => fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom<T | undefined>(...values) });

/** `signer` stands for the signing key's own `alg` or `kid`. */
const headers = fc.record({
  alg: mostly<unknown>('signer', 'ES256', 'RS256', 'PS256', 'none', '', 5),
  typ: mostly<unknown>('at+jwt', 'AT+JWT', 'application/at+jwt', 'Application/AT+jwt', 'x/at+jwt', 'jwt', 'application/jwt', 7),
  kid: mostly<unknown>('signer', 'es', 'rs', 'unknown', 9),
  crit: rarely<unknown>(['exp'], ['b64']),
  b64: rarely<unknown>(false),
});

const claims = fc.record({
  iss: mostly<unknown>(issuer, `${issuer}/`, 'https://other.example', 1),
  sub: mostly<unknown>('1001', 5),
  client_id: mostly<unknown>('app'),
  jti: mostly<unknown>('j1'),
  iat: mostly<unknown>(now - 10, now + 3600, '0', 1e300),
  exp: mostly<unknown>(now + 60, now - 6, now - 5, now - 4, now, '9999999999', 1e300),
  nbf: rarely<unknown>(now + 4, now + 5, now + 6, '0'),
  auth_time: rarely<unknown>(now - 100, -1e300),
  scope: rarely<unknown>('api1.read', ['a']),
});

/** The claims as JSON, or bytes that are not a JSON object in UTF-8 (or are, behind a BOM). */
const payloads = fc.oneof(
  { weight: 8, arbitrary: claims.map((c) => Buffer.from(JSON.stringify(c))) },
  { weight: 1, arbitrary: claims.map((c) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(c))])) },
  { weight: 1, arbitrary: fc.constantFrom('[]', 'null', '"x"', '{"exp":1e400,"iss":"x"}', '{"a":1}x').map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.concat([Buffer.from('{"iss":"'), Buffer.from(bytes), Buffer.from('"}')])) },
);

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom('replace', 'insert', 'delete'), char: fc.constantFrom(...alphabet) });
const edits = fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(edit, { minLength: 1, maxLength: 2 }) });

function edited(token: string, changes: ReadonlyArray<{ at: number; kind: string; char: string }>): string {
  let out = token;
  for (const { at, kind, char } of changes) {
    const i = at % out.length;
    out = kind === 'insert' ? out.slice(0, i) + char + out.slice(i) : out.slice(0, i) + (kind === 'replace' ? char : '') + out.slice(i + 1);
  }
  return out;
}

function headerFor(signer: Signer, header: Record<string, unknown>): Record<string, unknown> {
  const own: Record<string, unknown> = { alg: signer.alg, kid: signer.kid };
  return Object.fromEntries(Object.entries(header).filter(([, v]) => v !== undefined).map(([k, v]) => [k, v === 'signer' ? own[k] : v]));
}

describe('node:crypto and jose agree on the service\'s own access tokens', () => {
  beforeAll(async () => {
    await addKey('es', 'ES256', true);
    await addKey('rs', 'RS256', true);
    await addKey('es-outside', 'ES256', false);
  });

  const agree = async (token: string): Promise<AccessTokenValidation> => {
    const ours = await validator.validateAccessToken(token);
    const theirs = await oracle(token);
    expect({ token, active: ours.active }).toEqual({ token, active: theirs.active });
    if (ours.active && theirs.active) expect(ours.claims).toEqual(theirs.claims);
    return ours;
  };

  it('accepts a token as the service signs it, under either algorithm', async () => {
    for (const signer of signers.filter((s) => keys.has(s.kid))) {
      const token = signed(signer, { alg: signer.alg, typ: 'at+jwt', kid: signer.kid }, Buffer.from(JSON.stringify({ iss: issuer, sub: '1001', client_id: 'app', jti: 'j', iat: now, exp: now + 60 })));
      expect(await agree(token)).toMatchObject({ active: true, format: 'jwt', claims: { sub: '1001' } });
    }
  });

  it('on drawn headers, claims, signing keys and edits', async () => {
    const seen = { active: 0, inactive: 0 };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...signers.keys()), headers, payloads, edits, async (which, header, payload, changes) => {
        const token = edited(signed(signers[which]!, headerFor(signers[which]!, header), payload), changes);
        // Both refuse `crit` but for one case: jose understands `b64: true` (RFC 7797), which a
        // JWT never needs; the service's tokens carry no `crit`, and parseCompactJws refuses any.
        const critB64 = Array.isArray(header.crit) && header.crit[0] === 'b64' && header.b64 === undefined;
        if (critB64) return;
        const result = await agree(token);
        seen[result.active ? 'active' : 'inactive']++;
      }),
      { numRuns: 3000 },
    );
    // The draws reach both answers often enough for the agreement to mean something.
    expect(seen.active).toBeGreaterThan(20);
    expect(seen.inactive).toBeGreaterThan(1000);
  });

  it('refuses crit ["b64"] with b64 true, which jose would take: no token of the service carries crit', async () => {
    const [signer] = signers;
    const token = signed(signer!, { alg: 'ES256', typ: 'at+jwt', kid: 'es', crit: ['b64'], b64: true }, Buffer.from(JSON.stringify({ iss: issuer, sub: '1', client_id: 'app', jti: 'j', iat: now, exp: now + 60 })));
    expect(await validator.validateAccessToken(token)).toEqual({ active: false, reason: 'malformed JWT' });
  });
});
