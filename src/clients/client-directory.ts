/**
 * Every client and API resource the service knows, from every store: the config file first, then
 * the database, then plugins' stores (issue 19). The request path reads plain in-memory maps,
 * exactly as it did when the config was the only source; a background poll asks each store
 * for its version every `clientStores.refreshInterval` seconds and rebuilds the maps when one
 * moved, so a change made through any node reaches this one within that bound.
 *
 * An id two stores define: at start-up a `CLIENT_CONFLICT` boot error; later, the newcomer is
 * refused (the earlier store keeps it) with an error log line. An entry the config's rules
 * refuse: at start-up `CONFIG_INVALID`; later, refused with a log line, the entry's last good
 * version staying in force.
 */
import { BootError } from '../config/boot-error.js';
import type { ApiResource, Client, ResolvedConfig } from '../config/schema.js';
import type { ClientStore, Clock, Logger } from '../sdk/contracts.js';
import type { EntryChecker } from './check-entry.js';
import { isDocumentFailure, type MetadataDocuments } from './metadata-document/metadata-documents.js';

/** What the request path asks: the `get`/`has` of a map, so a plain `Map` stands in for it in unit tests. */
export interface Lookup<T> {
  get(id: string): T | undefined;
  has(id: string): boolean;
}

export type EntryKind = 'client' | 'apiResource';

/**
 * What some code outside the request's own client needs to know about all enabled clients:
 * rebuilt with the maps, so a reader pays a property read, not a walk over every client.
 */
export interface ClientFacts {
  /** The union of every enabled client's `allowedCorsOrigins` (the CORS middleware's set). */
  readonly corsOrigins: ReadonlySet<string>;
  /** Some enabled client is public (`requireClientSecret: false`): discovery lists `none`. */
  readonly anyPublicClient: boolean;
  /** Some enabled client may ask for `offline_access`: discovery lists the scope. */
  readonly anyOfflineAccess: boolean;
}

export function factsOf(clients: Iterable<Client>): ClientFacts {
  const corsOrigins = new Set<string>();
  let anyPublicClient = false;
  let anyOfflineAccess = false;
  for (const c of clients) {
    for (const origin of c.allowedCorsOrigins) corsOrigins.add(origin);
    anyPublicClient ||= !c.requireClientSecret;
    anyOfflineAccess ||= c.allowOfflineAccess;
  }
  return Object.freeze({ corsOrigins, anyPublicClient, anyOfflineAccess });
}

export interface ClientDirectory {
  /** Enabled clients of every store. */
  readonly clients: Lookup<Client>;
  /** Enabled API resources of every store. */
  readonly apiResources: Lookup<ApiResource>;
  /** Facts over the enabled clients; a new object after each reload that changed something. */
  facts(): ClientFacts;
  /** True when a store other than the config file is active, so the facts can change at run time. */
  readonly dynamic: boolean;
  /** True when a store holds the id but has it disabled. */
  isDisabled(kind: EntryKind, id: string): boolean;
  /** After a successful authentication: the owning store hears of it at most once a minute per id. */
  used(kind: EntryKind, id: string): void;
  /**
   * Issue 36: when `clientId` names a client ID metadata document (and no store has that id),
   * fetches it unless a fresh copy is kept, so `clients` finds the client; answers why the
   * document cannot be used, or `undefined` (also for every other id).
   */
  prepare(clientId: string | undefined): Promise<string | undefined>;
  /** Loads every store once; a conflict or an invalid entry stops start-up. */
  load(): Promise<void>;
  /** Asks each store for its version and reloads those that moved (what the timer runs). */
  refresh(): Promise<void>;
  start(): void;
  stop(): void;
}

export interface ClientDirectoryDeps {
  config: Pick<ResolvedConfig, 'clients' | 'apiResources' | 'clientStores'>;
  /** Stores besides the config file, in order: the database, then plugins'. */
  stores: readonly ClientStore[];
  checker: EntryChecker;
  logger: Logger;
  clock: Clock;
  /** Issue 36: clients named by the URL of their metadata document, when the deployment accepts them. */
  documents?: MetadataDocuments | undefined;
}

interface Entries {
  readonly clients: ReadonlyMap<string, { readonly value: Client; readonly disabled: boolean }>;
  readonly apiResources: ReadonlyMap<string, { readonly value: ApiResource; readonly disabled: boolean }>;
}

interface Source {
  readonly name: string;
  readonly store: ClientStore | undefined;
  version: string | number | undefined;
  entries: Entries;
}

const USED_EVERY_MS = 60_000;
const empty: Entries = { clients: new Map(), apiResources: new Map() };

export function createClientDirectory(deps: ClientDirectoryDeps): ClientDirectory {
  const log = deps.logger;
  const configEntries: Entries = {
    clients: new Map(deps.config.clients.map((c) => [c.clientId, { value: c, disabled: false }])),
    apiResources: new Map(deps.config.apiResources.map((r) => [r.name, { value: r, disabled: false }])),
  };
  const sources: Source[] = [
    { name: 'config', store: undefined, version: undefined, entries: configEntries },
    ...deps.stores.map((store) => ({ name: store.name, store, version: undefined, entries: empty })),
  ];
  // The maps the request path reads; replaced whole, never edited in place.
  let clients = new Map<string, Client>(deps.config.clients.map((c) => [c.clientId, c]));
  let apiResources = new Map<string, ApiResource>(deps.config.apiResources.map((r) => [r.name, r]));
  let facts = factsOf(clients.values());
  let disabled = new Set<string>();
  let owners = new Map<string, Source>();
  const lastUsed = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> | undefined;

  const keyOf = (kind: EntryKind, id: string): string => `${kind}:${id}`;

  /** Reads one store and checks its entries; the previous good version of a refused entry stays. */
  async function read(source: Source, boot: boolean, problems: string[]): Promise<Entries> {
    const snapshot = await source.store!.load();
    const where = (line: string): string => `client store "${source.name}": ${line}`;
    const refuse = (lines: readonly string[]): void => {
      if (boot) problems.push(...lines.map(where));
      else for (const line of lines) log.error({ clientStore: source.name }, `${where(line)} (refused; its last accepted version stays in force)`);
    };
    const apis = new Map<string, { value: ApiResource; disabled: boolean }>();
    for (const entry of Array.isArray(snapshot?.apiResources) ? snapshot.apiResources : []) {
      const checked = deps.checker.apiResource(entry);
      if (checked.ok) apis.set(checked.value.name, { value: checked.value, disabled: checked.disabled });
      else refuse(checked.problems);
    }
    // Keep a refused entry's last good version: one bad edit must not lock a working client out.
    const keepOld = <T>(target: Map<string, T>, old: ReadonlyMap<string, T>, entry: unknown, idField: string): void => {
      const id = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)[idField] : undefined;
      const previous = typeof id === 'string' ? old.get(id) : undefined;
      if (typeof id === 'string' && previous !== undefined && !target.has(id)) target.set(id, previous);
    };
    for (const entry of Array.isArray(snapshot?.apiResources) ? snapshot.apiResources : []) keepOld(apis, source.entries.apiResources, entry, 'name');
    const storeResources = [...apis.values()].map((a) => a.value);
    const found = new Map<string, { value: Client; disabled: boolean }>();
    for (const entry of Array.isArray(snapshot?.clients) ? snapshot.clients : []) {
      const checked = deps.checker.client(entry, storeResources);
      if (checked.ok) {
        if (found.has(checked.value.clientId)) refuse([`client "${checked.value.clientId}" is defined twice in the store`]);
        else found.set(checked.value.clientId, { value: checked.value, disabled: checked.disabled });
      } else {
        refuse(checked.problems);
        keepOld(found, source.entries.clients, entry, 'clientId');
      }
    }
    return { clients: found, apiResources: apis };
  }

  /** Merges the sources in order: the first to define an id keeps it. */
  function rebuild(boot: boolean, problems: string[]): void {
    const nextClients = new Map<string, Client>();
    const nextApis = new Map<string, ApiResource>();
    const nextDisabled = new Set<string>();
    const nextOwners = new Map<string, Source>();
    for (const source of sources) {
      const merge = <T>(kind: EntryKind, what: string, entries: ReadonlyMap<string, { value: T; disabled: boolean }>, target: Map<string, T>): void => {
        for (const [id, { value, disabled: off }] of entries) {
          const key = keyOf(kind, id);
          const owner = nextOwners.get(key);
          if (owner) {
            const line = `${what} "${id}" is defined by client store "${owner.name}" and by "${source.name}"`;
            if (boot) problems.push(`${line} (remove it from one of them)`);
            else if (owners.get(key) !== source) log.error({ clientStore: source.name }, `${line}: the one in "${source.name}" is refused`);
            continue;
          }
          nextOwners.set(key, source);
          if (off) nextDisabled.add(key);
          else target.set(id, value);
        }
      };
      merge('client', 'client id', source.entries.clients, nextClients);
      merge('apiResource', 'API resource', source.entries.apiResources, nextApis);
    }
    clients = nextClients;
    facts = factsOf(nextClients.values());
    apiResources = nextApis;
    disabled = nextDisabled;
    owners = nextOwners;
  }

  async function refreshOnce(): Promise<void> {
    let changed = false;
    for (const source of sources) {
      if (!source.store?.version) continue;
      try {
        const version = await source.store.version();
        if (version === source.version) continue;
        source.entries = await read(source, false, []);
        source.version = version;
        changed = true;
      } catch (err) {
        log.warn({ err, clientStore: source.name }, `client store "${source.name}" could not be read; its last loaded clients stay in force`);
      }
    }
    if (changed) rebuild(false, []);
  }

  const documents = deps.documents;
  return {
    // A store's client wins over a document of the same id (a store may hold an https id).
    clients: documents
      ? { get: (id) => clients.get(id) ?? documents.get(id), has: (id) => clients.has(id) || documents.get(id) !== undefined }
      : { get: (id) => clients.get(id), has: (id) => clients.has(id) },
    async prepare(clientId) {
      if (!documents || clientId === undefined || clients.has(clientId) || !documents.names(clientId)) return undefined;
      const found = await documents.resolve(clientId);
      return isDocumentFailure(found) ? found.failure : undefined;
    },
    apiResources: { get: (name) => apiResources.get(name), has: (name) => apiResources.has(name) },
    facts: () => facts,
    dynamic: deps.stores.length > 0,
    isDisabled: (kind, id) => disabled.has(keyOf(kind, id)),
    used(kind, id) {
      const key = keyOf(kind, id);
      const store = owners.get(key)?.store;
      if (!store?.used) return;
      const now = deps.clock.now();
      if (now - (lastUsed.get(key) ?? -Infinity) < USED_EVERY_MS) return;
      lastUsed.set(key, now);
      store.used(kind, id, now).catch((err: unknown) => log.warn({ err, clientStore: store.name }, 'could not record the last use'));
    },
    async load() {
      const problems: string[] = [];
      for (const source of sources) {
        if (!source.store) continue;
        try {
          const version = source.store.version ? await source.store.version() : undefined;
          source.entries = await read(source, true, problems);
          source.version = version;
        } catch (err) {
          if (err instanceof BootError) throw err;
          throw new BootError('STORE_UNAVAILABLE', `client store "${source.name}": cannot load it: ${(err as Error).message}`, { cause: err });
        }
      }
      if (problems.length > 0) throw new BootError('CONFIG_INVALID', problems);
      rebuild(true, problems);
      if (problems.length > 0) throw new BootError('CLIENT_CONFLICT', problems);
    },
    refresh() {
      // One refresh at a time: a slow store must not pile up reads.
      refreshing ??= refreshOnce().finally(() => {
        refreshing = undefined;
      });
      return refreshing;
    },
    start() {
      if (timer || !sources.some((s) => s.store?.version)) return;
      timer = setInterval(() => void this.refresh(), deps.config.clientStores.refreshInterval * 1000);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
