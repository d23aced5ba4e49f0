import { describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/sql/postgres.js';
import { StoreUnavailableError } from '../../src/store/store.js';

describe('openPostgres', () => {
  it('reports an unreachable server as StoreUnavailableError without the URL or password', async () => {
    // Port 1 on loopback: nothing listens, so the connect is refused at once.
    const store = openPostgres('postgres://svc:s3cret-pass@127.0.0.1:1/svc');
    try {
      const failure = await store.ping().catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect((failure as Error).message).toBe('PostgreSQL store unavailable during ping: ECONNREFUSED.');
      expect((failure as Error).message).not.toContain('s3cret');
    } finally {
      await store.close();
    }
  });

  it('rejects a schema name that could inject connection options', () => {
    expect(() => openPostgres('postgres://localhost/x', { schema: 'a -c role=admin' })).toThrow(
      /Invalid PostgreSQL schema name/,
    );
  });
});
