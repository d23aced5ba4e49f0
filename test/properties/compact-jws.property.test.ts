/**
 * The private-key-jwt plugin checks assertion signatures with node:crypto (compact-jws.ts);
 * jose is the reference. For tokens jose signed under every accepted algorithm, and for any
 * change to one of their characters, both must agree on whether the signature holds.
 */
import fc from 'fast-check';
import { compactVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SupportedAlgorithm } from '../../plugins/private-key-jwt/algorithms.js';
import { MalformedJws, parseCompactJws, verifyCompactJws as verifySignature } from '../../src/sdk/jws.js';
import { claimsFor, makeKey, sign, type KeyKind, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const setups: Array<[KeyKind, SupportedAlgorithm]> = [
  ['RSA', 'RS256'], ['RSA', 'RS512'], ['RSA', 'PS256'], ['RSA-PSS', 'PS256'],
  ['P-256', 'ES256'], ['P-384', 'ES384'], ['Ed25519', 'EdDSA'], ['Ed25519', 'Ed25519'],
];

interface Signed {
  readonly alg: SupportedAlgorithm;
  readonly key: TestKey;
  readonly token: string;
}

async function joseSays({ alg, key }: Signed, token: string): Promise<boolean> {
  try {
    await compactVerify(token, key.publicKey, { algorithms: [alg] });
    return true;
  } catch {
    return false;
  }
}

function weSay({ alg, key }: Signed, token: string): boolean {
  try {
    const jws = parseCompactJws(token);
    return jws.header.alg === alg && verifySignature(jws, alg, key.publicKey);
  } catch (error) {
    if (error instanceof MalformedJws) return false;
    throw error;
  }
}

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';

/** Replaces, inserts or deletes one character, anywhere in the token. */
const edits = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'insert', 'delete'),
  char: fc.constantFrom(...alphabet),
});

function edited(token: string, { at, kind, char }: { at: number; kind: string; char: string }): string {
  const i = at % token.length;
  if (kind === 'insert') return token.slice(0, i) + char + token.slice(i);
  return token.slice(0, i) + (kind === 'replace' ? char : '') + token.slice(i + 1);
}

describe('node:crypto and jose agree on assertion signatures', () => {
  const signed: Signed[] = [];

  beforeAll(async () => {
    const keys = new Map<KeyKind, TestKey>();
    for (const [kind] of setups) if (!keys.has(kind)) keys.set(kind, await makeKey(kind));
    for (const [kind, alg] of setups) {
      const key = keys.get(kind)!;
      signed.push({ alg, key, token: await sign(key, alg, claimsFor('app'), { kid: 'k' }) });
    }
  });

  it('on the tokens as signed', async () => {
    for (const s of signed) {
      expect(weSay(s, s.token), s.alg).toBe(true);
      expect(await joseSays(s, s.token), s.alg).toBe(true);
    }
  });

  it('on every one-character change', async () => {
    const seen = { both: 0, neither: 0 };
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.array(edits, { minLength: 1, maxLength: 3 }), async (which, changes) => {
        const s = signed[which % signed.length]!;
        const token = changes.reduce(edited, s.token);
        const ours = weSay(s, token);
        expect(ours, `${s.alg}: ${token}`).toBe(await joseSays(s, token));
        seen[ours ? 'both' : 'neither']++;
      }),
      { numRuns: 2000 },
    );
    // Most edits break the signature; a few only touch the unused bits of a last character.
    expect(seen.neither, JSON.stringify(seen)).toBeGreaterThan(1000);
  });
});
