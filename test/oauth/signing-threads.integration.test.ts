/**
 * The signing threads (`signing.threads`): what they sign verifies with jose under every key type
 * the service signs with, a turn's signatures spread over the threads come back to the right
 * callers, and nothing asked of them is left waiting: an unknown or forgotten key, or a pool
 * closed with signatures in flight, is a refusal.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compactVerify, decodeProtectedHeader, jwtVerify } from 'jose';
import { createSigningThreads, SigningThreadError, type SigningThreads } from '../../src/oauth/keys/signing-threads.js';
import { signCompactJwsWith } from '../../src/sdk/jws.js';
import type { Logger } from '../../src/sdk/contracts.js';

// Every thread the pool starts, so a test can stop one as a crash would.
const started = vi.hoisted(() => [] as Worker[]);
vi.mock('node:worker_threads', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:worker_threads')>();
  class RecordedWorker extends actual.Worker {
    constructor(...args: ConstructorParameters<typeof actual.Worker>) {
      super(...args);
      started.push(this);
    }
  }
  return { ...actual, Worker: RecordedWorker };
});

const lines: Array<{ level: string; message: string }> = [];
const logger = {
  error: (_fields: object, message: string) => void lines.push({ level: 'error', message }),
  warn: (_fields: object, message: string) => void lines.push({ level: 'warn', message }),
  info: () => undefined,
  debug: () => undefined,
} as unknown as Logger;

const keys: Record<string, { privateKey: KeyObject; publicKey: KeyObject }> = {
  RS256: generateKeyPairSync('rsa', { modulusLength: 2048 }),
  PS256: generateKeyPairSync('rsa', { modulusLength: 2048 }),
  ES256: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  ES384: generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  EdDSA: generateKeyPairSync('ed25519'),
};

let pool: SigningThreads | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
  lines.length = 0;
});

const signerOf = (threads: SigningThreads, kid: string) => signCompactJwsWith((input) => threads.sign(kid, input));

describe('signing threads', () => {
  it('sign JWTs that jose verifies, for every key type the service signs with', async () => {
    pool = createSigningThreads({ threads: 2, logger });
    for (const [alg, { privateKey }] of Object.entries(keys)) pool.add(`k-${alg}`, alg, privateKey);
    for (const [alg, { publicKey }] of Object.entries(keys)) {
      const token = await signerOf(pool, `k-${alg}`)({ alg, typ: 'at+jwt', kid: `k-${alg}` }, { sub: 'm2m', alg });
      const { payload, protectedHeader } = await jwtVerify(token, publicKey, { algorithms: [alg] });
      expect(protectedHeader).toMatchObject({ alg, typ: 'at+jwt', kid: `k-${alg}` });
      expect(payload).toEqual({ sub: 'm2m', alg });
    }
  });

  it('answer each of many signatures asked for in one turn with its own token, whichever thread made it', async () => {
    pool = createSigningThreads({ threads: 3, logger });
    pool.add('rs', 'RS256', keys.RS256!.privateKey);
    pool.add('es', 'ES256', keys.ES256!.privateKey);
    const asked = Array.from({ length: 200 }, (_, i) => {
      const kid = i % 2 === 0 ? 'rs' : 'es';
      return signerOf(pool!, kid)({ alg: kid === 'rs' ? 'RS256' : 'ES256', kid }, { n: i });
    });
    const tokens = await Promise.all(asked);
    for (const [i, token] of tokens.entries()) {
      const { kid } = decodeProtectedHeader(token);
      const { payload } = await compactVerify(token, kid === 'rs' ? keys.RS256!.publicKey : keys.ES256!.publicKey);
      expect(JSON.parse(Buffer.from(payload).toString())).toEqual({ n: i });
    }
  });

  it('refuse a key they were not given, and one forgotten since', async () => {
    pool = createSigningThreads({ threads: 1, logger });
    await expect(pool.sign('nope', 'a.b')).rejects.toThrow(SigningThreadError);
    pool.add('old', 'ES256', keys.ES256!.privateKey);
    await expect(pool.sign('old', 'a.b')).resolves.toMatch(/^[A-Za-z0-9_-]{86}$/);
    pool.forget('old');
    await expect(pool.sign('old', 'a.b')).rejects.toThrow('no key old on the signing threads');
  });

  it('refuse, not hang, the signatures in flight when closed, and every one asked for later', async () => {
    pool = createSigningThreads({ threads: 2, logger });
    pool.add('rs', 'RS256', keys.RS256!.privateKey);
    const inFlight = Promise.allSettled(Array.from({ length: 50 }, () => pool!.sign('rs', 'e30.e30')));
    // The turn's batch is posted on setImmediate; close once it is out, while the threads sign.
    await new Promise((resolve) => setImmediate(resolve));
    await pool.close();
    const settled = await inFlight;
    for (const result of settled) {
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(SigningThreadError);
    }
    expect(settled.some((r) => r.status === 'rejected')).toBe(true);
    await expect(pool.sign('rs', 'e30.e30')).rejects.toThrow('the signing threads are stopped');
    // A close is not a failure: nothing is logged as one.
    expect(lines).toEqual([]);
  });

  it('refuse a signature asked for in the turn the pool is closed in', async () => {
    pool = createSigningThreads({ threads: 1, logger });
    pool.add('es', 'ES256', keys.ES256!.privateKey);
    const asked = pool.sign('es', 'e30.e30');
    const closing = pool.close();
    await expect(asked).rejects.toThrow(SigningThreadError);
    await closing;
  });

  it('replace a thread that stops unexpectedly, refusing (not losing) what it held, and sign on', async () => {
    started.length = 0;
    pool = createSigningThreads({ threads: 1, logger });
    pool.add('rs', 'RS256', keys.RS256!.privateKey);
    const held = Promise.allSettled(Array.from({ length: 30 }, () => pool!.sign('rs', 'e30.e30')));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toHaveLength(1);
    await started[0]!.terminate();
    const settled = await held;
    for (const r of settled) if (r.status === 'rejected') expect((r.reason as Error).message).toBe('the signing thread stopped');
    expect(settled.some((r) => r.status === 'rejected')).toBe(true);
    expect(lines).toContainEqual({ level: 'error', message: 'a signing thread stopped; starting another' });
    // The replacement has the key without being given it again.
    expect(started).toHaveLength(2);
    const token = await signerOf(pool, 'rs')({ alg: 'RS256', kid: 'rs' }, { after: 'restart' });
    await expect(jwtVerify(token, keys.RS256!.publicKey)).resolves.toMatchObject({ payload: { after: 'restart' } });
  });

  it('do not keep a process alive that has nothing else to do', async () => {
    // The check is in a child: a pool left open must not stop it from exiting.
    const { execFileSync } = await import('node:child_process');
    const script = `
      const { createJiti } = require('jiti');
      const jiti = createJiti(process.cwd() + '/');
      jiti.import(${JSON.stringify(new URL('../../src/oauth/keys/signing-threads.ts', import.meta.url).pathname)}).then(({ createSigningThreads }) => {
        const pool = createSigningThreads({ threads: 2, logger: console });
        pool.add('k', 'ES256', require('node:crypto').generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
        return pool.sign('k', 'e30.e30').then((s) => console.log('signed', s.length));
      });
    `;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: new URL('../../', import.meta.url).pathname, timeout: 20_000 }).toString();
    expect(out.trim()).toBe('signed 86');
  });
});
