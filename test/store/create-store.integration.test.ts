import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/create-store.js';

describe('createStore', () => {
  let configDir: string;
  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), 'svc-config-'));
  });
  afterEach(() => {
    rmSync(configDir, { recursive: true, force: true });
  });

  it.each(['', 'mysql://db/svc', 'sqlite:', 'memroy', 'postgres:/oops'])('rejects %j, naming the store field', async (spec) => {
    await expect(createStore(spec, configDir)).rejects.toThrow(
      /^Invalid "store": expected "memory", "sqlite:<path>" .*"postgres:\/\/\.\.\."; found /,
    );
  });

  it('does not echo a mistyped URL that may hold a password', async () => {
    const failure = (await createStore('postgre://svc:s3cret@db/svc', configDir).catch((error: unknown) => error)) as Error;

    expect(failure.message).toContain('found a value starting with "postgre:"');
    expect(failure.message).not.toContain('s3cret');
  });

  it('opens a SQLite file relative to the config folder, without migrating it', async () => {
    const store = await createStore('sqlite:data/svc.db', configDir);
    try {
      expect(existsSync(join(configDir, 'data', 'svc.db'))).toBe(true);
      await expect(store.get('x')).rejects.toThrow(/no such table/);
      await store.migrate();
      expect(await store.get('x')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('opens an in-memory SQLite database and the memory store', async () => {
    for (const spec of ['sqlite::memory:', 'memory']) {
      const store = await createStore(spec, configDir);
      await store.migrate();
      await store.addSigningKey({ kid: 'k', alg: 'ES256', privateJwk: '{}', createdAt: 1, activatesAt: 1, retiresAt: undefined });
      expect((await store.listSigningKeys()).map((key) => key.kid)).toEqual(['k']);
      await store.close();
    }
    expect(existsSync(join(configDir, ':memory:'))).toBe(false);
  });

  it('accepts both PostgreSQL URL schemes without connecting', async () => {
    for (const spec of ['postgres://svc@127.0.0.1:1/svc', 'postgresql://svc@127.0.0.1:1/svc']) {
      const store = await createStore(spec, configDir);
      await expect(store.ping()).rejects.toThrow(/^PostgreSQL store unavailable/);
      await store.close();
    }
  });
});
