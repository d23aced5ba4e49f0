/**
 * The client directory over several stores (issue 19), with plain stores and a checker that
 * takes `{ clientId }` entries: the order stores win in, conflicts at start-up and later, a
 * refused edit keeping the last good version, an unreachable store keeping what it had, and the
 * throttled last-use call.
 */
import { describe, expect, it } from 'vitest';
import { BootError } from '../../src/config/boot-error.js';
import type { Client } from '../../src/config/schema.js';
import type { EntryChecker } from '../../src/clients/check-entry.js';
import { createClientDirectory } from '../../src/clients/client-directory.js';
import type { ClientStore, Logger } from '../../src/sdk/contracts.js';

const client = (clientId: string, scope = 'api'): Client =>
  ({ clientId, allowedScopes: [scope], allowedCorsOrigins: [`https://${clientId}.example`], requireClientSecret: scope !== 'public', allowOfflineAccess: false }) as unknown as Client;

/** Accepts `{ clientId, scope? , disabled? }`; refuses an entry whose scope is "bad". */
const checker: EntryChecker = {
  client(entry) {
    const e = entry as { clientId: string; scope?: string; disabled?: boolean };
    if (e.scope === 'bad') return { ok: false, problems: [`client "${e.clientId}".allowedScopes[0]: unknown scope "bad"`] };
    return { ok: true, value: client(e.clientId, e.scope), disabled: e.disabled === true };
  },
  apiResource: () => ({ ok: false, problems: ['no API resources here'] }),
};

function memoryStore(name: string, entries: unknown[]) {
  const state = { entries, version: 1, down: false, used: [] as string[] };
  const store: ClientStore = {
    name,
    load: async () => ({ clients: state.entries, apiResources: [] }),
    version: async () => {
      if (state.down) throw new Error('ECONNREFUSED');
      return state.version;
    },
    used: async (kind, id, at) => void state.used.push(`${kind}:${id}@${at}`),
  };
  return { store, state };
}

function recordingLogger() {
  const lines: Array<{ level: string; msg: string | undefined }> = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (_o, msg) => void lines.push({ level: 'warn', msg }),
    error: (_o, msg) => void lines.push({ level: 'error', msg }),
    child: () => logger,
  };
  return { logger, lines };
}

const config = { clients: [client('app')], apiResources: [], clientStores: { database: true, refreshInterval: 5 } };

describe('client directory', () => {
  it('rebuilds its facts (CORS origins, any public client) with each reload that changed something', async () => {
    const db = memoryStore('database', [{ clientId: 'db-app' }]);
    const dir = createClientDirectory({ config, stores: [db.store], checker, logger: recordingLogger().logger, clock: { now: () => 0 } });
    expect([...dir.facts().corsOrigins]).toEqual(['https://app.example']);
    await dir.load();
    const loaded = dir.facts();
    expect(loaded).toEqual({ corsOrigins: new Set(['https://app.example', 'https://db-app.example']), anyPublicClient: false, anyOfflineAccess: false });
    await dir.refresh();
    expect(dir.facts()).toBe(loaded);
    db.state.entries = [{ clientId: 'native', scope: 'public' }];
    db.state.version = 2;
    await dir.refresh();
    expect(dir.facts()).toEqual({ corsOrigins: new Set(['https://app.example', 'https://native.example']), anyPublicClient: true, anyOfflineAccess: false });
  });

  it('serves the config first, then each store in order; a disabled entry is known but not served', async () => {
    const db = memoryStore('database', [{ clientId: 'db-app' }, { clientId: 'off', disabled: true }]);
    const dir = createClientDirectory({ config, stores: [db.store], checker, logger: recordingLogger().logger, clock: { now: () => 0 } });
    await dir.load();
    expect(dir.clients.get('app')).toBe(config.clients[0]);
    expect(dir.clients.get('db-app')?.clientId).toBe('db-app');
    expect(dir.clients.has('off')).toBe(false);
    expect(dir.isDisabled('client', 'off')).toBe(true);
    expect(dir.isDisabled('client', 'db-app')).toBe(false);
  });

  it('stops start-up naming both stores of an id, and every entry the rules refuse', async () => {
    const a = memoryStore('database', [{ clientId: 'app' }]);
    const err = await createClientDirectory({ config, stores: [a.store], checker, logger: recordingLogger().logger, clock: { now: () => 0 } }).load().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BootError);
    expect(err).toMatchObject({ code: 'CLIENT_CONFLICT', problems: ['client id "app" is defined by client store "config" and by "database" (remove it from one of them)'] });
    const b = memoryStore('ldap', [{ clientId: 'x', scope: 'bad' }]);
    await expect(createClientDirectory({ config, stores: [b.store], checker, logger: recordingLogger().logger, clock: { now: () => 0 } }).load()).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      problems: ['client store "ldap": client "x".allowedScopes[0]: unknown scope "bad"'],
    });
  });

  it('reloads only a store whose version moved; a later conflict or bad edit is refused with a log line', async () => {
    const db = memoryStore('database', [{ clientId: 'db-app', scope: 'one' }]);
    const plugin = memoryStore('ldap', [{ clientId: 'ldap-app' }]);
    const { logger, lines } = recordingLogger();
    const dir = createClientDirectory({ config, stores: [db.store, plugin.store], checker, logger, clock: { now: () => 0 } });
    await dir.load();

    db.state.entries = [{ clientId: 'db-app', scope: 'two' }];
    await dir.refresh();
    expect(dir.clients.get('db-app')?.allowedScopes).toEqual(['one']); // same version: not reloaded
    db.state.version = 2;
    await dir.refresh();
    expect(dir.clients.get('db-app')?.allowedScopes).toEqual(['two']);

    db.state.entries = [{ clientId: 'db-app', scope: 'bad' }];
    db.state.version = 3;
    plugin.state.entries = [{ clientId: 'ldap-app' }, { clientId: 'db-app', scope: 'three' }];
    plugin.state.version = 2;
    await dir.refresh();
    expect(dir.clients.get('db-app')?.allowedScopes).toEqual(['two']);
    expect(lines).toEqual([
      { level: 'error', msg: 'client store "database": client "db-app".allowedScopes[0]: unknown scope "bad" (refused; its last accepted version stays in force)' },
      { level: 'error', msg: 'client id "db-app" is defined by client store "database" and by "ldap": the one in "ldap" is refused' },
    ]);
  });

  it('keeps what an unreachable store last gave, and says so', async () => {
    const db = memoryStore('database', [{ clientId: 'db-app' }]);
    const { logger, lines } = recordingLogger();
    const dir = createClientDirectory({ config, stores: [db.store], checker, logger, clock: { now: () => 0 } });
    await dir.load();
    db.state.down = true;
    await dir.refresh();
    expect(dir.clients.has('db-app')).toBe(true);
    expect(lines).toEqual([{ level: 'warn', msg: 'client store "database" could not be read; its last loaded clients stay in force' }]);
  });

  it('tells the owning store of a use at most once a minute per id, and never the config', async () => {
    const db = memoryStore('database', [{ clientId: 'db-app' }]);
    let now = 1_000_000;
    const dir = createClientDirectory({ config, stores: [db.store], checker, logger: recordingLogger().logger, clock: { now: () => now } });
    await dir.load();
    dir.used('client', 'db-app');
    now += 59_999;
    dir.used('client', 'db-app');
    dir.used('client', 'app');
    now += 1;
    dir.used('client', 'db-app');
    await Promise.resolve();
    expect(db.state.used).toEqual(['client:db-app@1000000', 'client:db-app@1060000']);
  });
});
