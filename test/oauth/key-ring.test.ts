/**
 * The key ring on an injected clock: rotation (publish, then sign, then retire), and configured
 * keys that take precedence over managed ones.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK } from 'jose';
import { BootError } from '../../src/config/boot-error.js';
import { checkConfig } from '../../src/config/load.js';
import type { UserConfig } from '../../src/config/schema.js';
import { createApp } from '../../src/app/create-app.js';
import { createKeyRing, type KeyRing } from '../../src/oauth/keys/key-ring.js';
import type { Logger } from '../../src/sdk/contracts.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { StoreUnavailableError, type Store } from '../../src/store/store.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

const dir = mkdtempSync(join(tmpdir(), 'svc-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let clock: { at: number; now(): number };
let store: Store;
const rings: KeyRing[] = [];

beforeEach(() => {
  clock = { at: Date.UTC(2030, 0, 1), now() { return this.at; } };
  store = createMemoryStore(clock);
});
afterEach(() => {
  for (const ring of rings.splice(0)) ring.stop();
});

function config(user: UserConfig = {}) {
  return checkConfig({ issuer: 'https://issuer.test', store: 'memory', pluginDirs: [], ...user }, dir);
}

async function ring(user: UserConfig = {}, on: Store = store): Promise<KeyRing> {
  const keyRing = await createKeyRing({ config: config(user), store: on, clock, logger: silent });
  rings.push(keyRing);
  return keyRing;
}

const kids = (keyRing: KeyRing, alg?: string): string[] =>
  (JSON.parse(keyRing.jwksJson()) as { keys: JWK[] }).keys.filter((k) => !alg || k.alg === alg).map((k) => k.kid!);

async function advanceTo(keyRing: KeyRing, at: number): Promise<void> {
  clock.at = at;
  await keyRing.refresh();
}

describe('managed keys', () => {
  it('creates one key per algorithm on first start, signs with it at once and publishes only public parts', async () => {
    const keyRing = await ring({ signing: { accessTokenAlgorithm: 'ES256' } });
    expect(keyRing.algorithms).toEqual(['ES256', 'RS256']);
    const es = keyRing.signingKey('ES256');
    const rs = keyRing.signingKey('RS256');
    expect(kids(keyRing).sort()).toEqual([es.kid, rs.kid].sort());
    for (const jwk of (JSON.parse(keyRing.jwksJson()) as { keys: JWK[] }).keys) {
      expect(jwk).not.toHaveProperty('d');
      expect(jwk).not.toHaveProperty('p');
      expect(jwk.use).toBe('sig');
    }
    expect((await store.listSigningKeys()).map((k) => k.kid).sort()).toEqual([es.kid, rs.kid].sort());
    expect(() => keyRing.signingKey('PS256')).toThrow('no signing key for PS256');
  });

  it('reuses the stored keys on a second start (another node, or after a restart)', async () => {
    const first = await ring();
    const second = await ring();
    expect(second.signingKey('ES256').kid).toBe(first.signingKey('ES256').kid);
    expect(second.jwksJson()).toBe(first.jwksJson());
    const token = await sign(first);
    const key = await second.verificationKey(first.signingKey('ES256').kid);
    await expect(jwtVerify(token, key!.publicKey)).resolves.toBeTruthy();
  });

  it('gives rings that start at the same moment on one store the same keys', async () => {
    const [a, b, c] = await Promise.all([ring(), ring(), ring()]);
    expect(await store.listSigningKeys()).toHaveLength(2);
    expect(b!.jwksJson()).toBe(a!.jwksJson());
    expect(c!.signingKey('ES256').kid).toBe(a!.signingKey('ES256').kid);
  });

  it('creates its own first key when the node that claimed it never delivers', async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silent, warn: (_obj, msg) => void warnings.push(String(msg)) };
    // The lease another node took just before it died.
    await store.add({
      key: 'signing-key-lease:ES256:first', type: 'signing_key_lease', clientId: '', subjectId: undefined,
      sessionId: undefined, createdAt: clock.at, expiresAt: clock.at + 60_000, consumedAt: undefined, data: '{}',
    });
    const started = Date.now();
    const keyRing = await createKeyRing({ config: config(), store, clock, logger, keyWaitMs: 300 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(keyRing.signingKey('ES256').kid).toEqual(expect.any(String));
    expect(warnings).toEqual(['another node claimed the first signing key but none appeared; creating one here']);
  });

  it('stops start-up with STORE_UNAVAILABLE when the keys cannot be read', async () => {
    const down: Store = {
      ...store,
      listSigningKeys: () => Promise.reject(new StoreUnavailableError('PostgreSQL store unavailable during listSigningKeys: ECONNREFUSED.')),
    };
    const error = await ring({}, down).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BootError);
    expect(error).toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: 'signing keys: cannot load them from the store: PostgreSQL store unavailable during listSigningKeys: ECONNREFUSED.',
    });
  });

  describe('rotation', () => {
    // Tokens live up to 2 h. A replaced key stays published that long after the last node stops
    // signing with it (one 60 s refresh interval after the switch), plus 5 min of slack.
    const user: UserConfig = {
      signing: { rotationInterval: DAY / 1000, propagationTime: HOUR / 1000 },
      clients: [{ clientId: 'long', clientSecrets: [{ value: hashSecret('long-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: [], accessTokenLifetime: 7200 }],
    };
    const retention = 2 * HOUR + 60_000 + 5 * 60_000;

    it('publishes a new key before it signs, signs with it after propagation, and retires the old one after the longest token lifetime', async () => {
      const t0 = clock.at;
      const keyRing = await ring(user);
      const old = keyRing.signingKey('ES256').kid;

      await advanceTo(keyRing, t0 + DAY - HOUR - 1);
      expect(kids(keyRing, 'ES256')).toEqual([old]);

      // Due: the successor is published now, one propagation time before it signs.
      await advanceTo(keyRing, t0 + DAY - HOUR);
      const published = kids(keyRing, 'ES256');
      expect(published).toHaveLength(2);
      const next = published.find((kid) => kid !== old)!;
      expect(keyRing.signingKey('ES256').kid).toBe(old);
      expect(await keyRing.verificationKey(next)).toBeDefined();

      await advanceTo(keyRing, t0 + DAY - 1);
      expect(keyRing.signingKey('ES256').kid).toBe(old);

      await advanceTo(keyRing, t0 + DAY);
      expect(keyRing.signingKey('ES256').kid).toBe(next);
      expect(kids(keyRing, 'ES256').sort()).toEqual([old, next].sort());

      // A token the old key signed just before the switch is valid for 2 h; its key stays until then.
      await advanceTo(keyRing, t0 + DAY + retention - 1);
      expect(kids(keyRing, 'ES256').sort()).toEqual([old, next].sort());
      expect(await keyRing.verificationKey(old)).toBeDefined();

      await advanceTo(keyRing, t0 + DAY + retention);
      expect(kids(keyRing, 'ES256')).toEqual([next]);
      expect(await keyRing.verificationKey(old)).toBeUndefined();
      expect((await store.listSigningKeys()).map((k) => k.kid)).not.toContain(old);
      expect(keyRing.signingKey('ES256').kid).toBe(next);
    });

    it('lets a node that did not rotate learn the new key from the store before it signs', async () => {
      const t0 = clock.at;
      const a = await ring(user);
      const b = await ring(user);
      await advanceTo(a, t0 + DAY - HOUR);
      const next = kids(a, 'ES256').find((kid) => kid !== a.signingKey('ES256').kid)!;

      // b has not refreshed yet, but a token from the new key makes it look the key up once.
      clock.at += 10_000;
      expect(await b.verificationKey(next)).toBeDefined();
      await b.refresh();
      expect(kids(b, 'ES256').sort()).toEqual(kids(a, 'ES256').sort());
      expect(b.signingKey('ES256').kid).toBe(a.signingKey('ES256').kid);
    });

    it('never rotates while looking up an unknown kid for a request', async () => {
      const keyRing = await ring(user);
      clock.at += DAY;
      expect(await keyRing.verificationKey('unknown')).toBeUndefined();
      expect(await store.listSigningKeys()).toHaveLength(2);
    });

    it('does not create a second successor when refreshed again while one is pending', async () => {
      const t0 = clock.at;
      const keyRing = await ring(user);
      await advanceTo(keyRing, t0 + DAY - HOUR);
      await advanceTo(keyRing, t0 + DAY - HOUR / 2);
      expect(kids(keyRing, 'ES256')).toHaveLength(2);
    });
  });
});

describe('configured keys', () => {
  const envName = 'SVC_TEST_SIGNING_JWK';
  afterEach(() => {
    delete process.env[envName];
  });

  async function ecPemFile(name: string): Promise<{ path: string; thumbprint: string }> {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const path = join(dir, name);
    writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    return { path, thumbprint: await calculateJwkThumbprint((await exportJWK(publicKey)) as JWK) };
  }

  async function rsaJwk(kid: string): Promise<JWK> {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    return { ...(await exportJWK(privateKey)), kid };
  }

  it('signs with a PEM PKCS#8 file and a JWK from an environment variable instead of managed keys', async () => {
    const pem = await ecPemFile('es256.pem');
    process.env[envName] = JSON.stringify(await rsaJwk('env-rsa-1'));

    const keyRing = await ring({ signing: { keys: [pem.path, { env: envName }] } });

    expect(keyRing.signingKey('ES256').kid).toBe(pem.thumbprint);
    expect(keyRing.signingKey('RS256').kid).toBe('env-rsa-1');
    expect(kids(keyRing).sort()).toEqual([pem.thumbprint, 'env-rsa-1'].sort());
    expect(await store.listSigningKeys()).toEqual([]);
    const token = await sign(keyRing);
    await expect(jwtVerify(token, (await keyRing.verificationKey(pem.thumbprint))!.publicKey)).resolves.toBeTruthy();
  });

  it('takes precedence over managed keys already in the store, and leaves other algorithms managed', async () => {
    const managed = await ring();
    const managedEs = managed.signingKey('ES256').kid;
    const pem = await ecPemFile('precedence.pem');

    const keyRing = await ring({ signing: { keys: [{ path: pem.path }] } });

    expect(keyRing.signingKey('ES256').kid).toBe(pem.thumbprint);
    expect(kids(keyRing, 'ES256')).toEqual([pem.thumbprint]);
    expect(kids(keyRing)).not.toContain(managedEs);
    expect(keyRing.signingKey('RS256').kid).toBe(managed.signingKey('RS256').kid);
  });

  it('resolves a relative key path against the config folder', async () => {
    const pem = await ecPemFile('relative.pem');
    const keyRing = await ring({ signing: { keys: ['./relative.pem'] } });
    expect(keyRing.signingKey('ES256').kid).toBe(pem.thumbprint);
  });

  describe('a key that cannot be used stops start-up, naming its source', () => {
    it('a missing file', async () => {
      const path = join(dir, 'missing.pem');
      const error = await ring({ signing: { keys: [path] } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BootError);
      expect(error).toMatchObject({ code: 'KEYS_INVALID' });
      expect((error as Error).message).toContain(`signing.keys[0] (${path}): cannot read the key file`);
    });

    it('a file that holds no key', async () => {
      const path = join(dir, 'garbage.pem');
      writeFileSync(path, '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n');
      const pem = await ecPemFile('good.pem');
      const error = await ring({ signing: { keys: [pem.path, path] } }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'BootError', code: 'KEYS_INVALID' });
      expect((error as Error).message).toMatch(
        new RegExp(`^signing\\.keys\\[1\\] \\(${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): not a usable private key`),
      );
    });

    it('an unset environment variable', async () => {
      const error = await ring({ signing: { keys: [{ env: envName }] } }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'BootError', code: 'KEYS_INVALID' });
      expect((error as Error).message).toBe(`signing.keys[0] ($${envName}): empty or unset`);
    });

    it('a public key where a private key belongs', async () => {
      const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicOnly } = await rsaJwk('pub');
      process.env[envName] = JSON.stringify(publicOnly);
      const error = await ring({ signing: { keys: [{ env: envName }] } }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'BootError', code: 'KEYS_INVALID' });
      expect((error as Error).message).toBe(
        `signing.keys[0] ($${envName}): not a usable private key (PEM PKCS#8 or JWK): expected a private key`,
      );
    });

    it('through createApp, which closes the store it opened', async () => {
      const error = await createApp(config({ signing: { keys: [{ env: envName }] } }), {
        logDestination: { write() {} },
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'BootError', code: 'KEYS_INVALID' });
      expect((error as Error).message).toContain(`$${envName}`);
    });
  });
});

async function sign(keyRing: KeyRing): Promise<string> {
  const key = keyRing.signingKey('ES256');
  return new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
}
