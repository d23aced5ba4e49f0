/**
 * Store outages. With a TCP proxy between the service and PostgreSQL, the test cuts the line
 * (connections reset and refused) or silences it (nothing answers): requests that need the
 * database answer 503 `temporarily_unavailable` within a bounded time, the rest keep working,
 * nothing crashes, and the service recovers on its own. A store that cannot be opened at all
 * stops start-up.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app/create-app.js';
import { BootError } from '../../src/config/boot-error.js';
import { checkConfig } from '../../src/config/load.js';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createTestSchema, postgresSkipReason, postgresUrl, type TestSchema } from '../support/pg.js';
import { basic, firstPartyPlugins, postForm, startServer, type TestServer } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const skip = await postgresSkipReason('store fault tests');
const bound = 10_000;
const unavailable = {
  error: 'temporarily_unavailable',
  error_description: 'The service is temporarily unavailable; try again later.',
};

const baseConfig: UserConfig = {
  pluginDirs: [firstPartyPlugins],
  apiScopes: [{ name: 'api1.read' }],
  apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] }],
  clients: [
    {
      clientId: 'ref-app',
      clientSecrets: [{ value: hashSecret('ref-app-secret') }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
      accessTokenType: 'reference',
    },
    {
      clientId: 'jwt-app',
      clientSecrets: [{ value: hashSecret('jwt-app-secret') }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
    },
  ],
};

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await run();
  return { result, ms: performance.now() - started };
}

describe.skipIf(skip)('PostgreSQL behind a proxy that fails', () => {
  let schema: TestSchema;
  let proxy: TcpProxy;
  let s: TestServer;
  // In production an uncaught exception ends the process; here it is recorded and must not happen.
  const uncaught: unknown[] = [];
  const record = (error: unknown): void => {
    uncaught.push(error);
  };

  beforeAll(async () => {
    process.on('uncaughtException', record);
    schema = await createTestSchema('store_faults');
    const target = new URL(postgresUrl);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    s = await startServer({ ...baseConfig, store: schema.urlVia(proxy.host, proxy.port) });
  });

  afterEach(() => {
    proxy?.resume();
    uncaught.length = 0;
  });

  afterAll(async () => {
    process.off('uncaughtException', record);
    await s?.close();
    await proxy?.close();
    await schema?.drop();
  });

  const token = (clientId: string) =>
    postForm(`${s.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic(clientId, `${clientId}-secret`) });
  const introspect = (value: string) =>
    postForm(`${s.url}/connect/introspect`, { token: value }, { authorization: basic('api1', 'api1-secret') });

  async function expectWorking(): Promise<string> {
    const issued = await token('ref-app');
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const handle = issued.body.access_token as string;
    expect((await introspect(handle)).body).toMatchObject({ active: true, client_id: 'ref-app' });
    return handle;
  }

  async function expectUnavailable(request: () => ReturnType<typeof postForm>): Promise<void> {
    const { result: res, ms } = await timed(request);
    // Let a late socket event surface before judging.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(uncaught.map(String), 'uncaught exceptions (each would end a real server process)').toEqual([]);
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body).toEqual(unavailable);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(ms).toBeLessThan(bound);
  }

  const grantRows = async () => Number((await schema.query<{ n: string }>('select count(*) as n from persisted_grants'))[0]!.n);

  it.each(['cut', 'blackhole'] as const)(
    'answers 503 within the bound while the line is %s, serves what needs no database, and recovers by itself',
    async (fault) => {
      const handle = await expectWorking();
      const jwt = (await token('jwt-app')).body.access_token as string;
      const rowsBefore = await grantRows();

      proxy[fault]();
      await expectUnavailable(() => token('ref-app'));
      await expectUnavailable(() => introspect(handle));
      // JWTs, discovery and the JWKS do not touch the database.
      expect((await introspect(jwt)).body).toMatchObject({ active: true, client_id: 'jwt-app' });
      expect((await token('jwt-app')).status).toBe(200);
      expect((await fetch(`${s.url}/.well-known/openid-configuration/jwks`)).status).toBe(200);

      proxy.resume();
      const after = await expectWorking();
      expect((await introspect(handle)).body.active).toBe(true);
      expect(after).not.toBe(handle);
      if (fault === 'cut') {
        // A reset line delivered nothing: the failed request left no record behind.
        expect(await grantRows()).toBe(rowsBefore + 1);
      }
      const failures = s.logs.filter((l) => l.error === 'temporarily_unavailable');
      expect(failures.length).toBeGreaterThanOrEqual(2);
      expect(failures.every((l) => l.level === 40 && l.status === 503)).toBe(true);
      expect(s.logs.filter((l) => l.error === 'server_error')).toEqual([]);
      expect(uncaught.map(String), 'uncaught exceptions (each would end a real server process)').toEqual([]);
    },
  );

  it('keeps answering 503 through a long outage, then serves again on the same pool', async () => {
    await expectWorking();
    proxy.cut();
    for (let i = 0; i < 3; i++) await expectUnavailable(() => token('ref-app'));
    proxy.resume();
    for (let i = 0; i < 3; i++) await expectWorking();
    expect(uncaught.map(String), 'uncaught exceptions (each would end a real server process)').toEqual([]);
  });

  it('refuses to start while the database is unreachable, naming the store without its password', async () => {
    proxy.cut();
    const url = new URL(schema.urlVia(proxy.host, proxy.port));
    url.password = 'hunter2';
    const config = checkConfig({ ...baseConfig, issuer: 'http://127.0.0.1', store: url.toString() }, process.cwd());
    const { result: error, ms } = await timed(() =>
      createApp(config, { logDestination: { write() {} } }).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(BootError);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    const message = (error as Error).message;
    expect(message).toContain(`${proxy.host}:${proxy.port}`);
    expect(message).toContain('unavailable');
    expect(message).not.toContain('hunter2');
    expect(ms).toBeLessThan(bound);
  });
});

describe('a SQLite store that cannot be opened', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-faults-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops start-up with STORE_UNAVAILABLE naming the path and the reason', async () => {
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, 'a regular file');
    const path = join(file, 'svc.db');
    const config = checkConfig({ ...baseConfig, issuer: 'http://127.0.0.1', store: `sqlite:${path}` }, dir);

    const error = await createApp(config, { logDestination: { write() {} } }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BootError);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((error as Error).message).toContain(`"${path}"`);
    // mkdir reports a regular file in the way as EEXIST; opening under it as ENOTDIR.
    expect((error as Error).message).toMatch(/: (EEXIST|ENOTDIR)/);
  });

  it('resolves a relative path against the config folder and names the resolved path', async () => {
    writeFileSync(join(dir, 'blocker'), '');
    const config = checkConfig({ ...baseConfig, issuer: 'http://127.0.0.1', store: 'sqlite:./blocker/data/svc.db' }, dir);
    const error = await createApp(config, { logDestination: { write() {} } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'BootError', code: 'STORE_UNAVAILABLE' });
    expect((error as Error).message).toContain(join(dir, 'blocker', 'data', 'svc.db'));
  });
});
