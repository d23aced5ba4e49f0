/**
 * Spending a one-time grant and storing what it yields succeed or fail together (issue 14,
 * point 3). A store that fails while the tokens are being stored leaves the refresh token or
 * device code usable and no orphan rows, so the client's retry of the same request succeeds.
 * On each backend: a memory store wrapped to fail, and SQLite and PostgreSQL with a trigger
 * that makes the insert fail for real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { UserConfig } from '../../src/config/schema.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { StoreUnavailableError, type PersistedGrant, type Store } from '../../src/store/store.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { startServer, type TestServer } from '../support/server.js';
import { alice, manualClock, tokenRequest, userToken, baseConfig, clients } from '../fixtures/grant-plugins/world.js';
import { codesFor, decideOverHttp, deviceClients, deviceConfig, poll } from '../device/helpers.js';

const pgSkip = await postgresSkipReason('issuance atomicity tests on PostgreSQL');

const unavailable = { error: 'temporarily_unavailable', error_description: 'The service is temporarily unavailable; try again later.' };
const serverError = { error: 'server_error', error_description: 'An unexpected error occurred.' };

/** One way to make the store fail while it stores grants of one type, and to read what it holds. */
interface Fault {
  readonly name: string;
  /** The store value for the config, and the store instance to pass in (memory wrapper only). */
  open(): Promise<{ store: string; instance?: Store; configDir?: string }>;
  failInserts(type: string): Promise<void>;
  heal(): Promise<void>;
  /** Rows in the grants table, or `undefined` where there is no table to count. */
  rows(): Promise<number | undefined>;
  /** The answer a client gets while the store fails. */
  readonly failure: { status: number; body: Record<string, string> };
  close(): Promise<void>;
}

/** A memory store whose writes of one grant type fail, however they are asked for. */
function memoryFault(): Fault {
  let failing: string | undefined;
  const inner = createMemoryStore() as Store & { commit?: (batch: { add: readonly PersistedGrant[] }) => Promise<boolean> };
  const refuse = (grants: readonly PersistedGrant[]) => {
    if (failing !== undefined && grants.some((g) => g.type === failing)) throw new StoreUnavailableError('injected store failure');
  };
  const wrapped = {
    ...inner,
    async add(grant: PersistedGrant) {
      refuse([grant]);
      return inner.add(grant);
    },
    async commit(batch: { add: readonly PersistedGrant[] }) {
      refuse(batch.add);
      return inner.commit!(batch as never);
    },
  } as Store;
  return {
    name: 'memory (wrapped to fail)',
    open: async () => ({ store: 'memory', instance: wrapped }),
    failInserts: async (type) => void (failing = type),
    heal: async () => void (failing = undefined),
    rows: async () => undefined,
    failure: { status: 503, body: unavailable },
    close: async () => {},
  };
}

function sqliteFault(): Fault {
  const dir = mkdtempSync(join(tmpdir(), 'svc-atomicity-'));
  const path = join(dir, 'svc.db');
  const exec = <T>(run: (db: BetterSqlite3.Database) => T): T => {
    const db = new BetterSqlite3(path);
    try {
      return run(db);
    } finally {
      db.close();
    }
  };
  return {
    name: 'SQLite (a trigger that raises)',
    open: async () => ({ store: `sqlite:${path}` }),
    failInserts: async (type) =>
      void exec((db) => db.exec(`create trigger fail_insert before insert on persisted_grants when new.type = '${type}' begin select raise(abort, 'injected'); end`)),
    heal: async () => void exec((db) => db.exec('drop trigger fail_insert')),
    rows: async () => exec((db) => (db.prepare('select count(*) as n from persisted_grants').get() as { n: number }).n),
    failure: { status: 500, body: serverError },
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresFault(): Fault {
  let schema: TestSchema;
  return {
    name: 'PostgreSQL (a trigger that raises)',
    async open() {
      schema = await createTestSchema('atomicity');
      return { store: schema.url };
    },
    async failInserts(type) {
      // 55P03 (lock_not_available): what a lock timeout raises; the service answers 503.
      await schema.query(`create function fail_insert() returns trigger language plpgsql as $$ begin raise exception 'injected' using errcode = '55P03'; end $$`);
      await schema.query(`create trigger fail_insert before insert on persisted_grants for each row when (new.type = '${type}') execute function fail_insert()`);
    },
    async heal() {
      await schema.query('drop trigger fail_insert on persisted_grants');
      await schema.query('drop function fail_insert()');
    },
    rows: async () => Number((await schema.query<{ n: string }>('select count(*) as n from persisted_grants'))[0]!.n),
    failure: { status: 503, body: unavailable },
    close: () => schema.drop(),
  };
}

const faults: Array<[() => Fault, string | undefined]> = [
  [memoryFault, undefined],
  [sqliteFault, undefined],
  [postgresFault, pgSkip],
];

const tv = { ...deviceClients[0]!, accessTokenType: 'reference' as const };

for (const [makeFault, skip] of faults) {
  const fault = makeFault();
  describe.skipIf(skip)(fault.name, () => {
    const clock = manualClock(Date.now());
    let server: TestServer;

    beforeAll(async () => {
      const { store, instance } = await fault.open();
      const device = await deviceConfig();
      const config: UserConfig = {
        ...baseConfig,
        store,
        identityResources: device.identityResources,
        clients: [...Object.values(clients), tv],
      };
      server = await startServer(config, { clock, ...(instance ? { store: instance } : {}) });
    });
    afterAll(async () => {
      await server?.close();
      await fault.close();
    });

    it('leaves the refresh token usable when storing its successor fails, and the retry succeeds', async () => {
      const token = (await userToken(server, { clientId: 'web-ref', scope: 'api1.read offline_access' })).refresh_token as string;
      const refresh = (t: string) => tokenRequest(server, 'web-ref', { grant_type: 'refresh_token', refresh_token: t });
      const before = await fault.rows();

      await fault.failInserts('refresh_token');
      const failed = await refresh(token);
      await fault.heal();

      expect({ status: failed.status, body: failed.body }).toEqual(fault.failure);
      expect(await fault.rows()).toBe(before);
      const retry = await refresh(token);
      expect(retry.body).not.toHaveProperty('error');
      expect(retry.status).toBe(200);
      expect((await refresh(retry.body.refresh_token as string)).status).toBe(200);
    });

    it('leaves the device code usable when storing its tokens fails, and the retry succeeds', async () => {
      const codes = await codesFor(server, { client_id: 'tv', scope: 'api1.read offline_access' });
      await decideOverHttp(server.url, codes.verification_uri_complete, alice, 'approve');
      const before = await fault.rows();

      await fault.failInserts('reference_token');
      const failed = await poll(server, codes.device_code);
      await fault.heal();

      expect({ status: failed.status, body: failed.body }).toEqual(fault.failure);
      expect(await fault.rows()).toBe(before);
      clock.advance(codes.interval);
      const retry = await poll(server, codes.device_code);
      expect(retry.body).not.toHaveProperty('error');
      expect(retry.status).toBe(200);
    });
  });
}
