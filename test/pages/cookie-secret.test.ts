import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { BootError } from '../../src/config/boot-error.js';
import { checkConfig } from '../../src/config/load.js';
import { createKeyProtector, type KeyProtector } from '../../src/oauth/keys/key-protection.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { PersistedGrant } from '../../src/store/store.js';
import { loadCookieSecret, rewrapCookieSecret } from '../../src/pages/cookie-secret.js';
import { manualClock } from '../device/helpers.js';

describe('the cookie secret', () => {
  it('is the configured one when set', async () => {
    const clock = manualClock();
    const secret = await loadCookieSecret({ configured: 'x'.repeat(32), store: createMemoryStore(clock), clock });
    expect(secret.toString()).toBe('x'.repeat(32));
  });

  it('is otherwise created once in the store: every node loading it, even at once, gets the same', async () => {
    const clock = manualClock();
    const store = createMemoryStore(clock);
    const loaded = await Promise.all(Array.from({ length: 5 }, () => loadCookieSecret({ configured: undefined, store, clock })));
    expect(loaded[0]!.length).toBe(32);
    for (const s of loaded) expect(s.equals(loaded[0]!)).toBe(true);
    clock.advance(365 * 86_400);
    expect((await loadCookieSecret({ configured: undefined, store, clock })).equals(loaded[0]!)).toBe(true);
  });

  it('differs between stores', async () => {
    const clock = manualClock();
    const a = await loadCookieSecret({ configured: undefined, store: createMemoryStore(clock), clock });
    const b = await loadCookieSecret({ configured: undefined, store: createMemoryStore(clock), clock });
    expect(a.equals(b)).toBe(false);
  });
});

describe('the stored cookie secret with a key-encryption key (signing.keyEncryptionKeys)', () => {
  const kek = randomBytes(32).toString('base64');
  beforeEach(() => {
    process.env.SVC_TEST_PAGE_KEK = kek;
  });
  afterEach(() => {
    delete process.env.SVC_TEST_PAGE_KEK;
  });
  const protector = (): KeyProtector => createKeyProtector([{ env: 'SVC_TEST_PAGE_KEK' }]);
  const plainRecord = (data: string): PersistedGrant => ({
    key: 'device_flow:cookie_secret', type: 'device_cookie_secret', clientId: '', subjectId: undefined, sessionId: undefined,
    createdAt: 0, expiresAt: Date.now() + 86_400_000, consumedAt: undefined, data,
  });

  it('is stored sealed: the record holds neither the secret nor its encoding', async () => {
    const clock = manualClock();
    const store = createMemoryStore(clock);
    const secret = await loadCookieSecret({ configured: undefined, store, clock, protector: protector() });
    const stored = (await store.get('device_flow:cookie_secret'))!.data;
    expect(stored).toMatch(/^\{"sealed":"A256GCM"/);
    expect(stored).not.toContain(secret.toString('base64url'));
    expect(Buffer.from(stored).includes(secret)).toBe(false);
    expect((await loadCookieSecret({ configured: undefined, store, clock, protector: protector() })).equals(secret)).toBe(true);
  });

  it('an old plaintext record keeps its secret and is sealed when an app starts', async () => {
    const clock = manualClock();
    const store = createMemoryStore(clock);
    const old = randomBytes(32);
    await store.add(plainRecord(old.toString('base64url')));
    const app = await createApp(
      checkConfig({ issuer: 'https://issuer.test', store: 'memory', pluginDirs: [], logLevel: 'silent', signing: { keyEncryptionKeys: [{ env: 'SVC_TEST_PAGE_KEK' }] } }, process.cwd()),
      { store, clock },
    );
    await app.close();
    const stored = (await store.get('device_flow:cookie_secret'))!.data;
    expect(stored).toMatch(/^\{"sealed":"A256GCM"/);
    expect(stored).not.toContain(old.toString('base64url'));
    expect((await loadCookieSecret({ configured: undefined, store, clock, protector: protector() })).equals(old)).toBe(true);
  });

  it('a sealed one stops a node without the key-encryption key, in one line naming what to set', async () => {
    const clock = manualClock();
    const store = createMemoryStore(clock);
    await loadCookieSecret({ configured: undefined, store, clock, protector: protector() });
    const err = await loadCookieSecret({ configured: undefined, store, clock, protector: createKeyProtector([]) }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(BootError);
    expect((err as BootError).code).toBe('KEYS_INVALID');
    expect((err as BootError).problems).toEqual([
      `the page cookie secret (stored as device_flow:cookie_secret) is encrypted under key-encryption key ${protector().currentKekId!}, which is not configured: set signing.keyEncryptionKeys`,
    ]);
  });

  it('svc keys rewrap moves it to the first key-encryption key, after which the old one can go', async () => {
    const clock = manualClock();
    const store = createMemoryStore(clock);
    const secret = await loadCookieSecret({ configured: undefined, store, clock, protector: protector() });
    process.env.SVC_TEST_PAGE_KEK_NEW = randomBytes(32).toString('base64');
    try {
      const both = createKeyProtector([{ env: 'SVC_TEST_PAGE_KEK_NEW' }, { env: 'SVC_TEST_PAGE_KEK' }]);
      expect(await rewrapCookieSecret(store, both)).toBe(true);
      expect(await rewrapCookieSecret(store, both)).toBe(false);
      const onlyNew = createKeyProtector([{ env: 'SVC_TEST_PAGE_KEK_NEW' }]);
      expect((await loadCookieSecret({ configured: undefined, store, clock, protector: onlyNew })).equals(secret)).toBe(true);
    } finally {
      delete process.env.SVC_TEST_PAGE_KEK_NEW;
    }
  });
});
