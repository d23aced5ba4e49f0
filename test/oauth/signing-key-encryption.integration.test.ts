/**
 * Signing keys encrypted at rest (issue 18): the store holds sealed keys only, a key ring opens
 * them with any configured key-encryption key, start-up stops naming the key-encryption key
 * that is missing, and `svc keys rewrap` moves every key to the newest one. On a real SQLite
 * file, read back through the store as a copy of the database would be.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify, importJWK, type JWK } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { BootError } from '../../src/config/boot-error.js';
import { checkConfig } from '../../src/config/load.js';
import type { UserConfig } from '../../src/config/schema.js';
import { createKeyRing, type KeyRing } from '../../src/oauth/keys/key-ring.js';
import { createKeyProtector } from '../../src/oauth/keys/key-protection.js';
import type { Logger } from '../../src/sdk/contracts.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import type { SigningKeyRecord, Store } from '../../src/store/store.js';
import { runCliWith } from '../support/svc-process.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const clock = { now: () => Date.now() };
const newKek = (): string => randomBytes(32).toString('base64');

let dir: string;
let dbPath: string;
const rings: KeyRing[] = [];
const stores: Store[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-kek-'));
  dbPath = join(dir, 'svc.db');
});
afterEach(async () => {
  for (const ring of rings.splice(0)) ring.stop();
  for (const store of stores.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
  for (const name of ['SVC_TEST_KEK_A', 'SVC_TEST_KEK_B']) delete process.env[name];
});

type KekSources = NonNullable<NonNullable<UserConfig['signing']>['keyEncryptionKeys']>;

function config(keyEncryptionKeys: KekSources) {
  return checkConfig({ issuer: 'https://issuer.test', store: `sqlite:${dbPath}`, pluginDirs: [], signing: { keyEncryptionKeys } }, dir);
}

function store(): Store {
  const opened = openSqlite(dbPath);
  stores.push(opened);
  return opened;
}

async function ring(keyEncryptionKeys: KekSources): Promise<KeyRing> {
  const s = store();
  await s.migrate();
  const keyRing = await createKeyRing({ config: config(keyEncryptionKeys), store: s, clock, logger: silent });
  rings.push(keyRing);
  return keyRing;
}

async function storedKeys(): Promise<SigningKeyRecord[]> {
  const s = store();
  await s.migrate();
  return s.listSigningKeys();
}

async function bootError(run: () => Promise<unknown>): Promise<BootError> {
  const err = await run().then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(BootError);
  return err as BootError;
}

describe('sealed keys in the store', () => {
  it('stores no private key material when a key-encryption key is configured, and signs with the opened key', async () => {
    process.env.SVC_TEST_KEK_A = newKek();
    const keyRing = await ring([{ env: 'SVC_TEST_KEK_A' }]);
    const records = await storedKeys();
    expect(records.map((r) => r.alg).sort()).toEqual(['ES256', 'RS256']);
    for (const r of records) {
      const stored = JSON.parse(r.privateJwk) as Record<string, unknown>;
      expect(Object.keys(stored).sort()).toEqual(['ct', 'iv', 'kek', 'sealed', 'tag']);
      expect(stored.sealed).toBe('A256GCM');
      expect(r.privateJwk).not.toMatch(/"d"|"kty"/);
    }
    const key = keyRing.signingKey('ES256');
    const token = key.sign({ alg: 'ES256', typ: 'at+jwt', kid: key.kid }, { sub: 'x' });
    const published = (JSON.parse(keyRing.jwksJson()) as { keys: JWK[] }).keys.find((k) => k.kid === key.kid)!;
    await expect(jwtVerify(token, await importJWK(published, 'ES256'))).resolves.toBeDefined();
  });

  it('a key from a file works the same (hex accepted)', async () => {
    const file = join(dir, 'kek.hex');
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`);
    await ring([{ path: file }]);
    expect((await storedKeys()).every((r) => r.privateJwk.startsWith('{"sealed"'))).toBe(true);
  });

  it('a sealed record moved onto another kid does not open', async () => {
    process.env.SVC_TEST_KEK_A = newKek();
    const protector = createKeyProtector([{ env: 'SVC_TEST_KEK_A' }]);
    const sealed = protector.seal('kid-1', 'ES256', '{"kty":"EC"}');
    const moved: SigningKeyRecord = { kid: 'kid-2', alg: 'ES256', privateJwk: sealed, createdAt: 0, activatesAt: 0, retiresAt: undefined };
    expect(() => protector.open(moved)).toThrow(/signing key kid-2 \(ES256\) does not decrypt under key-encryption key \S+: the stored record was altered or damaged/);
    expect(protector.open({ ...moved, kid: 'kid-1' })).toBe('{"kty":"EC"}');
  });
});

describe('start-up refuses keys it cannot open', () => {
  it('names the key-encryption key when none is configured', async () => {
    process.env.SVC_TEST_KEK_A = newKek();
    await ring([{ env: 'SVC_TEST_KEK_A' }]);
    const id = createKeyProtector([{ env: 'SVC_TEST_KEK_A' }]).currentKekId!;
    const err = await bootError(() => ring([]));
    expect(err.code).toBe('KEYS_INVALID');
    expect(err.problems[0]).toMatch(new RegExp(`^signing key \\w+ \\((ES256|RS256)\\) is encrypted under key-encryption key ${id}, which is not configured: set signing.keyEncryptionKeys$`));
  });

  it('names it when only another one is configured, through createApp as svc start runs it', async () => {
    process.env.SVC_TEST_KEK_A = newKek();
    process.env.SVC_TEST_KEK_B = newKek();
    await ring([{ env: 'SVC_TEST_KEK_A' }]);
    for (const r of rings.splice(0)) r.stop();
    for (const s of stores.splice(0)) await s.close();
    const err = await bootError(() => createApp({ ...config([{ env: 'SVC_TEST_KEK_B' }]), logLevel: 'silent' }));
    expect(err.code).toBe('KEYS_INVALID');
    expect(err.problems[0]).toMatch(/is encrypted under key-encryption key \S+, which none of signing\.keyEncryptionKeys is \(configured: \S+\)$/);
  });

  it('a key-encryption key of the wrong size stops start-up naming its source', async () => {
    process.env.SVC_TEST_KEK_A = randomBytes(16).toString('base64');
    const err = await bootError(() => ring([{ env: 'SVC_TEST_KEK_A' }]));
    expect(err.problems).toEqual(['signing.keyEncryptionKeys[0] ($SVC_TEST_KEK_A): expected 32 random bytes as base64 or hex (make one with: openssl rand -base64 32)']);
  });

  it('an unset variable stops start-up', async () => {
    const err = await bootError(() => ring([{ env: 'SVC_TEST_KEK_A' }]));
    expect(err.problems).toEqual(['signing.keyEncryptionKeys[0] ($SVC_TEST_KEK_A): empty or unset']);
  });

  it('the key itself pasted into the config is refused', () => {
    expect(() => config(['c2VjcmV0'] as never)).toThrow(BootError);
  });
});

describe('rotation of the key-encryption key', () => {
  it('plain keys from before keep working once a key-encryption key is added; new keys are sealed', async () => {
    const before = await ring([]);
    const kid = before.signingKey('ES256').kid;
    expect((await storedKeys()).every((r) => r.privateJwk.includes('"d"'))).toBe(true);
    process.env.SVC_TEST_KEK_A = newKek();
    const after = await ring([{ env: 'SVC_TEST_KEK_A' }]);
    expect(after.signingKey('ES256').kid).toBe(kid);
  });

  it('svc keys rewrap moves every key to the newest key-encryption key; then the old one can go', async () => {
    process.env.SVC_TEST_KEK_A = newKek();
    await ring([{ env: 'SVC_TEST_KEK_A' }]);
    for (const r of rings.splice(0)) r.stop();
    for (const s of stores.splice(0)) await s.close();

    process.env.SVC_TEST_KEK_B = newKek();
    const configFile = join(dir, 'svc.config.json');
    writeFileSync(configFile, JSON.stringify({
      issuer: 'https://issuer.test', store: 'sqlite:./svc.db', pluginDirs: [],
      signing: { keyEncryptionKeys: [{ env: 'SVC_TEST_KEK_B' }, { env: 'SVC_TEST_KEK_A' }] },
    }));
    const env = { SVC_TEST_KEK_A: process.env.SVC_TEST_KEK_A, SVC_TEST_KEK_B: process.env.SVC_TEST_KEK_B };
    const idA = createKeyProtector([{ env: 'SVC_TEST_KEK_A' }]).currentKekId!;
    const idB = createKeyProtector([{ env: 'SVC_TEST_KEK_B' }]).currentKekId!;

    const before = await runCliWith({ env }, 'keys', '--config', configFile);
    expect(before.code).toBe(0);
    expect(before.stdout.split('\n')[0]).toMatch(/^kid\s+alg\s+created\s+activates\s+retires\s+protection$/);
    expect(before.stdout.match(new RegExp(`${idA}$`, 'gm'))).toHaveLength(2);

    const rewrap = await runCliWith({ env }, 'keys', 'rewrap', '--config', configFile);
    expect(rewrap).toEqual({ code: 0, stdout: `2 of 2 signing keys re-encrypted under key-encryption key ${idB}\n`, stderr: '' });
    const after = await runCliWith({ env }, 'keys', 'list', '--config', configFile);
    expect(after.stdout.match(new RegExp(`${idB}$`, 'gm'))).toHaveLength(2);
    expect(after.stdout).not.toContain(idA);

    // Only the new key-encryption key now: the ring opens every key.
    const keyRing = await ring([{ env: 'SVC_TEST_KEK_B' }]);
    expect(keyRing.algorithms).toEqual(['ES256', 'RS256']);
  });

  it('svc keys rewrap without a key-encryption key says what to set', async () => {
    const configFile = join(dir, 'svc.config.json');
    writeFileSync(configFile, JSON.stringify({ issuer: 'https://issuer.test', store: 'sqlite:./svc.db', pluginDirs: [] }));
    const run = await runCliWith({}, 'keys', 'rewrap', '--config', configFile);
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'svc: no key-encryption key is configured: set signing.keyEncryptionKeys first (see docs/guides/operations.md, "Signing keys").\n' });
  });
});
