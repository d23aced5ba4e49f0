/**
 * TOTP secrets at rest (issue 35): sealed with the key-encryption key, bound to their user, and
 * moved to the newest key by `svc keys rewrap` with the signing keys, after which the old key
 * can go and the codes still work.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyProtector } from '../../src/oauth/keys/key-protection.js';
import { createSecondFactorService, type SecondFactorService } from '../../src/second-factor/second-factors.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { runCliWith } from '../support/svc-process.js';
import { fromBase32, totpAt } from '../support/totp.js';

const env = { SVC_TEST_TOTP_KEK_A: randomBytes(32).toString('base64'), SVC_TEST_TOTP_KEK_B: randomBytes(32).toString('base64') };
let dir: string;
let store: Store;
let secret: string;

const unthrottled = { attempt: async <T>(_n: string, _a: string | undefined, check: () => Promise<T>, accepted: (r: T) => boolean) => {
  const result = await check();
  return { outcome: accepted(result) ? 'accepted' as const : 'rejected' as const, result };
} };

function service(names: Array<keyof typeof env>): SecondFactorService {
  Object.assign(process.env, env);
  return createSecondFactorService({
    factors: () => store.factors, protector: createKeyProtector(names.map((name) => ({ env: name }))), throttle: unthrottled, issuer: 'https://issuer.test', clock: { now: () => Date.now() },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-totp-kek-'));
  store = openSqlite(join(dir, 'svc.db'));
  await store.migrate();
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
  for (const name of Object.keys(env)) delete process.env[name];
});

describe('TOTP secrets at rest', () => {
  it('are sealed, not plain, and open only for their own user', async () => {
    const factors = service(['SVC_TEST_TOTP_KEK_A']);
    secret = (await factors.startEnrolment('sub-1', 'mia'))!.secret;
    const stored = (await store.factors.get('sub-1')).totp!.secret;
    expect(stored).not.toContain(secret);
    expect(JSON.parse(stored)).toMatchObject({ sealed: 'A256GCM', kek: createKeyProtector([{ env: 'SVC_TEST_TOTP_KEK_A' }]).currentKekId });
    // Moved onto another user's row, the sealed secret does not open.
    await store.factors.putTotp('sub-2', stored, Date.now());
    await expect(factors.pendingEnrolment('sub-2', 'other')).rejects.toThrow(/does not decrypt/);
    await store.factors.remove('sub-2');
    expect((await factors.confirmEnrolment('sub-1', totpAt(fromBase32(secret), Date.now()), undefined, 'test')).outcome).toBe('accepted');
  });

  it('move to the newest key-encryption key with svc keys rewrap; the codes work under it alone', async () => {
    const configFile = join(dir, 'svc.config.json');
    writeFileSync(configFile, JSON.stringify({
      issuer: 'https://issuer.test', store: 'sqlite:./svc.db', pluginDirs: [],
      signing: { keyEncryptionKeys: [{ env: 'SVC_TEST_TOTP_KEK_B' }, { env: 'SVC_TEST_TOTP_KEK_A' }] },
    }));
    const idB = createKeyProtector([{ env: 'SVC_TEST_TOTP_KEK_B' }]).currentKekId!;
    const run = await runCliWith({ env }, 'keys', 'rewrap', '--config', configFile);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`1 of 1 one-time code secrets re-encrypted under key-encryption key ${idB}\n`);
    expect(JSON.parse((await store.factors.get('sub-1')).totp!.secret)).toMatchObject({ kek: idB });
    const onlyB = service(['SVC_TEST_TOTP_KEK_B']);
    expect(await onlyB.verify('sub-1', totpAt(fromBase32(secret), Date.now() + 30_000), undefined, 'test')).toEqual({ outcome: 'accepted', factor: 'totp' });
  });
});
