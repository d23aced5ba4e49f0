/**
 * `svc users factors` and `svc users remove-factor` (issue 35) against a SQLite file, and the
 * SQL second-factor store under them: a code's step is accepted once, a recovery code spent
 * once, a pending secret confirmed once; the listing shows states and counts, never a secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import type { Store } from '../../src/store/store.js';

let dir: string;
let configFile: string;
let store: Store;
const subject = 'sub-dora';
const sealed = '{"sealed":"A256GCM","kek":"k","iv":"i","ct":"SECRET-CIPHERTEXT","tag":"t"}';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-factors-cli-'));
  configFile = join(dir, 'svc.config.json');
  writeFileSync(configFile, JSON.stringify({ store: 'sqlite:./svc.db' }));
  store = openSqlite(join(dir, 'svc.db'));
  await store.migrate();
  await store.users.add({ subjectId: subject, username: 'dora', email: undefined, emailVerified: false, claims: {}, disabled: false, passwordHash: undefined, createdAt: Date.now() });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function svc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await main([...args, '--config', configFile]), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('the SQL second-factor store', () => {
  it('confirms a pending secret once and accepts each later step once, in order', async () => {
    const now = Date.now();
    await store.factors.putTotp(subject, sealed, now);
    expect(await store.factors.acceptTotpStep(subject, sealed, 100, now, false)).toBe(false);
    expect(await store.factors.acceptTotpStep(subject, sealed, 100, now, true)).toBe(true);
    expect(await store.factors.acceptTotpStep(subject, sealed, 101, now, true)).toBe(false);
    expect(await store.factors.acceptTotpStep(subject, sealed, 100, now, false)).toBe(false);
    expect(await store.factors.acceptTotpStep(subject, sealed, 99, now, false)).toBe(false);
    expect(await store.factors.acceptTotpStep(subject, 'another secret', 102, now, false)).toBe(false);
    expect(await store.factors.acceptTotpStep(subject, sealed, 101, now, false)).toBe(true);
    expect((await store.factors.get(subject)).totp).toMatchObject({ secret: sealed, confirmedAt: now, lastStep: 101 });
  });

  it('spends a recovery code once; new codes replace the old', async () => {
    await store.factors.putRecoveryCodes(subject, ['h1', 'h2', 'h3'], 1);
    expect(await store.factors.spendRecoveryCode(subject, 'h2', 2)).toBe(true);
    expect(await store.factors.spendRecoveryCode(subject, 'h2', 3)).toBe(false);
    expect(await store.factors.spendRecoveryCode('someone-else', 'h1', 3)).toBe(false);
    expect((await store.factors.get(subject)).recoveryCodes.map((c) => c.usedAt)).toEqual([undefined, 2, undefined]);
  });
});

describe('svc users factors / remove-factor', () => {
  it('lists the factors without a secret or a hash', async () => {
    const run = await svc('users', 'factors', 'dora', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ username: 'dora', subjectId: subject, totp: 'active', recoveryCodesLeft: 2, recoveryCodesTotal: 3 });
    const text = await svc('users', 'factors', 'Dora');
    expect(text.stdout).toMatch(/totp\s+active/);
    expect(text.stdout).toMatch(/recovery codes\s+2 of 3 left/);
    for (const out of [run.stdout, text.stdout]) {
      expect(out).not.toContain('SECRET-CIPHERTEXT');
      expect(out).not.toContain('h1');
    }
  });

  it('removes one-time codes (a lost phone), then the recovery codes; says what it removed', async () => {
    expect((await svc('users', 'remove-factor', 'dora', 'totp')).stdout).toBe('one-time codes of "dora" removed (1 record).\n');
    expect((await store.factors.get(subject)).totp).toBeUndefined();
    expect(JSON.parse((await svc('users', 'remove-factor', 'dora', 'all', '--json')).stdout)).toEqual({ username: 'dora', factor: 'all', removed: 3 });
    expect(JSON.parse((await svc('users', 'factors', 'dora', '--json')).stdout)).toMatchObject({ totp: 'none', recoveryCodesLeft: 0 });
    const wrong = await svc('users', 'remove-factor', 'dora', 'phone');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe('svc: svc users remove-factor dora takes totp, recovery, passkey or all, got "phone".\n');
  });

  it('lists passkeys by name, never their key, and removes them', async () => {
    await store.factors.addPasskey(subject, { credentialId: 'CRED-ID', publicKey: 'PUBLIC-KEY', transports: ['internal'], name: 'Work laptop', backedUp: false, counter: 0, createdAt: Date.now() });
    const text = (await svc('users', 'factors', 'dora')).stdout;
    expect(text).toMatch(/passkey\s+Work laptop/);
    const json = (await svc('users', 'factors', 'dora', '--json')).stdout;
    expect(JSON.parse(json).passkeys).toEqual([{ name: 'Work laptop', created: expect.stringMatching(/Z$/), lastUsed: null }]);
    for (const out of [text, json]) expect(out).not.toMatch(/CRED-ID|PUBLIC-KEY/);
    expect((await svc('users', 'remove-factor', 'dora', 'passkey')).stdout).toBe('passkeys of "dora" removed (1 record).\n');
  });

  it('removing a user removes their factors', async () => {
    await store.factors.putRecoveryCodes(subject, ['h9'], 1);
    expect((await svc('users', 'remove', 'dora')).code).toBe(0);
    expect((await store.factors.get(subject)).recoveryCodes).toEqual([]);
  });
});
