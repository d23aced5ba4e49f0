/**
 * `svc clients ...` and `svc apis ...`: clients and API resources in the database the config's
 * `store` names, managed while the service runs (every node picks a change up within
 * `clientStores.refreshInterval`). Secrets are generated here, printed once, stored as hashes;
 * nothing prints a stored secret or hash.
 */
import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { createApp } from '../app/create-app.js';
import { createEntryChecker } from '../clients/check-entry.js';
import { ClientAdminError, createClientAdmin, type ClientAdmin, type NewSecret } from '../clients/client-admin.js';
import { entryOf } from '../clients/database-client-store.js';
import { diagnoseClientAuth } from '../clients/test-auth.js';
import { createRegistrationTokens } from '../clients/registration/registration-tokens.js';
import { loadConfig } from '../config/load.js';
import type { ResolvedConfig, UserConfig } from '../config/schema.js';
import type { PluginRegistry } from '../plugin-host/plugin-registry.js';
import type { RecordKind, StoredRecord, StoredSecret } from '../store/client-records.js';
import { createMemoryStore } from '../store/memory-store.js';
import type { Store } from '../store/store.js';
import { AdminApiRefusal, adminServer } from './admin-api-client.js';
import { remoteClientAdmin, type ClientOperations } from './remote-client-admin.js';
import { table } from './table.js';
import { registryOptions } from './registry-options.js';
import { fieldsFromFlags, inFlagWords, pluginFieldFlags } from './field-flags.js';
import { CliError } from './user-facing-error.js';
import { openMigratedStore, refuseMemoryStore } from './database-store.js';

export type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

interface Context {
  readonly config: ResolvedConfig;
  readonly raw: UserConfig;
  readonly registry: PluginRegistry;
  readonly store: Store;
  readonly admin: ClientAdmin;
}

const quiet = new Writable({ write: (_c, _e, done) => done() });
const out = (text: string): void => void process.stdout.write(text);
const iso = (ms: number | undefined): string => (ms === undefined ? '-' : new Date(ms).toISOString());
const str = (v: Values[string]): string | undefined => (typeof v === 'string' ? v : undefined);

/** `30`, `30s`, `15m`, `12h`, `7d`: seconds. */
export function parseDuration(value: string, option: string): number {
  const m = /^(\d+)([smhd]?)$/.exec(value);
  if (!m) throw new CliError(`${option} takes a duration such as 3600, 15m, 12h or 7d, got "${value}".`);
  return Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
}

/** A whole number from 1 to 1,000,000, e.g. `--max-uses 10`. */
export function parseCount(value: string, option: string): number {
  const n = /^\d{1,7}$/.test(value) ? Number(value) : 0;
  if (n < 1 || n > 1_000_000) throw new CliError(`${option} takes a whole number from 1 to 1000000, got "${value}".`);
  return n;
}

/** Loads the config, builds the plugins (against a throw-away store) for the checks, and opens the database. */
async function open(configPath: string | undefined): Promise<Context> {
  const { config, raw } = await loadConfig({ path: configPath });
  refuseMemoryStore(config);
  const app = await createApp({ ...config, logLevel: 'silent', clientStores: { ...config.clientStores, database: false } }, { store: createMemoryStore(), logDestination: quiet });
  await app.close();
  const store = await openMigratedStore(config);
  const admin = createClientAdmin({ records: store.clientRecords, checker: createEntryChecker(config, app.registry), config, clock: { now: () => Date.now() } });
  return { config, raw, registry: app.registry, store, admin };
}

/** A secret as `show` and `--json` give it: never its value. */
const secretView = (s: StoredSecret) => ({ id: s.id, type: s.type, description: s.description ?? null, created: iso(s.createdAt), expires: s.expiresAt === undefined ? null : iso(s.expiresAt) });

function recordView(r: StoredRecord) {
  return {
    [r.kind === 'client' ? 'clientId' : 'name']: r.id,
    disabled: r.disabled,
    created: iso(r.createdAt),
    updated: iso(r.updatedAt),
    lastUsed: r.lastUsedAt === undefined ? null : iso(r.lastUsedAt),
    ...r.definition,
    secrets: r.secrets.map(secretView),
  };
}

function printSecret(kind: RecordKind, id: string, secret: NewSecret, json: boolean): void {
  if (json) {
    out(`${JSON.stringify({ [kind === 'client' ? 'clientId' : 'name']: id, secretId: secret.id, secret: secret.value, expires: secret.expiresAt === undefined ? null : iso(secret.expiresAt) })}\n`);
    return;
  }
  out(`secret ${secret.id}${secret.expiresAt === undefined ? '' : ` (expires ${iso(secret.expiresAt)})`}: ${secret.value}\n`);
  process.stderr.write('svc: the secret is shown this once; only its hash is stored.\n');
}

/** The definition fields the options name (`field-flags.ts`), over `--definition '<json>'` for the rest. */
async function definitionOf(kind: RecordKind, values: Values): Promise<Record<string, unknown>> {
  const def: Record<string, unknown> = {};
  const json = str(values.definition);
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new CliError('--definition takes a JSON object of config fields, e.g. \'{"accessTokenLifetime": 600}\'.');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new CliError('--definition takes a JSON object of config fields.');
    Object.assign(def, parsed);
  }
  Object.assign(def, fieldsFromFlags(kind, values, kind === 'client' ? await pluginFieldFlags(Object.keys(registryOptions)) : []));
  if (kind === 'client' && values.public === true) def.requireClientSecret = false;
  return def;
}

/** An entry of the config file, as `list` shows it (never its secrets' hashes). */
interface ConfigEntry {
  readonly id: string;
  readonly name: string | undefined;
  readonly grants: readonly string[];
  readonly scopes: readonly string[];
  readonly secrets: readonly { expiresAt?: number | undefined }[];
}

/** `list`'s table (or JSON): the config's entries, then the database's, from the store or through the admin API. */
function printList(kind: RecordKind, records: readonly StoredRecord[], fromConfig: readonly ConfigEntry[], json: boolean, where = 'in the config or the database'): void {
  const now = Date.now();
  const liveOf = (secrets: readonly { expiresAt?: number | undefined; expiration?: number | undefined }[]): string =>
    `${secrets.filter((x) => { const end = x.expiresAt ?? x.expiration; return end === undefined || end > now; }).length} live of ${secrets.length}`;
  if (json) {
    const configViews = fromConfig.map((c) => ({
      [kind === 'client' ? 'clientId' : 'name']: c.id, source: 'config',
      ...(kind === 'client' ? { clientName: c.name ?? null, allowedGrantTypes: c.grants, allowedScopes: c.scopes } : { scopes: c.scopes }),
    }));
    out(`${JSON.stringify([...configViews, ...records.map((r) => ({ ...recordView(r), source: 'database' }))])}\n`);
  } else if (records.length === 0 && fromConfig.length === 0) out(`no ${kind === 'client' ? 'clients' : 'API resources'} ${where}\n`);
  else {
    const header = kind === 'client'
      ? ['client_id', 'name', 'grant types', 'scopes', 'secrets', 'state', 'last used', 'source']
      : ['name', 'scopes', 'secrets', 'state', 'last used', 'source'];
    const configRows = fromConfig.map((c) => kind === 'client'
      ? [c.id, c.name ?? '-', c.grants.join(','), c.scopes.join(','), liveOf(c.secrets), 'enabled', '-', 'config']
      : [c.id, c.scopes.join(','), liveOf(c.secrets), 'enabled', '-', 'config']);
    out(table([header, ...configRows, ...records.map((r) => {
      const common = [liveOf(r.secrets), r.disabled ? 'disabled' : 'enabled', iso(r.lastUsedAt), 'database'];
      const d = r.definition as { clientName?: string; allowedGrantTypes?: string[]; allowedScopes?: string[]; scopes?: string[] };
      return kind === 'client'
        ? [r.id, d.clientName ?? '-', (d.allowedGrantTypes ?? []).join(','), (d.allowedScopes ?? []).join(','), ...common]
        : [r.id, (d.scopes ?? []).join(','), ...common];
    })]));
  }
}

const usage = (noun: string): string =>
  `use one of: add, list, show, update, disable, enable, remove, secret add|expire|remove${noun === 'clients' ? ', test-auth, registration-token' : ''} (svc ${noun} --help)`;

export async function clientsCommand(kind: RecordKind, values: Values, positionals: readonly string[]): Promise<number> {
  const noun = kind === 'client' ? 'clients' : 'apis';
  const [action, ...args] = positionals;
  const json = values.json === true;
  const needId = (what = kind === 'client' ? '<client_id>' : '<name>'): string => {
    const id = args[action === 'secret' ? 1 : 0];
    if (id === undefined || id === '') throw new CliError(`svc ${noun} ${action === 'secret' ? `secret ${args[0]}` : action} needs ${what}.`);
    return id;
  };
  if (action === undefined) throw new CliError(usage(noun));
  const known = ['add', 'list', 'show', 'update', 'disable', 'enable', 'remove', 'secret', ...(kind === 'client' ? ['test-auth', 'registration-token'] : [])];
  if (!known.includes(action)) throw new CliError(`unknown action "${action}": ${usage(noun)}`);
  if (action === 'secret' && !['add', 'expire', 'remove'].includes(args[0] ?? '')) throw new CliError(`svc ${noun} secret takes add, expire or remove.`);

  const server = str(values.server);
  if (server !== undefined) {
    // Issue 39: the same actions through a running service's admin API, which manages the database's entries.
    if (action === 'test-auth' || action === 'registration-token') throw new CliError(`svc --server does not run ${noun} ${action}; run it with --config on the database.`);
    if (action === 'secret' && args[0] === 'expire') throw new CliError('the admin API cannot change a secret\'s expiry: add one with secret add --expire-others-in, or run secret expire with --config on the database.');
    if (values['from-config'] === true) throw new CliError('--from-config copies the config file\'s entry: run it with --config on the database.');
    const remote = remoteClientAdmin(adminServer(server));
    return withRefusals(() => act(remote, 'its clientStores.refreshInterval', () => remote.list(kind).then((records) => {
      printList(kind, records, [], json, 'in the database (the config file\'s own are not shown through --server)');
      return 0;
    })));
  }

  const ctx = await open(str(values.config));
  try {
    return await withRefusals(() => run(ctx));
  } finally {
    await ctx.store.close();
  }

  async function withRefusals(work: () => Promise<number>): Promise<number> {
    try {
      return await work();
    } catch (err) {
      // The API's refusal of a definition is the same sentence the database's check says, told in flags alike.
      if (err instanceof ClientAdminError || (err instanceof AdminApiRefusal && err.status === 400)) {
        // A problem with what the flags said is told in flags; one with --from-config in config words.
        const flagged = (action === 'add' || action === 'update') && values['from-config'] !== true;
        const pluginFlags = kind === 'client' ? await pluginFieldFlags(Object.keys(registryOptions)) : [];
        throw new CliError(flagged ? err.message.split('\n').map((line, i) => (i === 0 ? line : `  ${inFlagWords(kind, line.trim(), values, pluginFlags)}`)).join('\n') : err.message);
      }
      throw err;
    }
  }

  async function run({ admin, config, raw, registry, store }: Context): Promise<number> {
    switch (action) {
      case 'add':
        if (values['from-config'] === true) return fromConfig(admin, raw, needId());
        break;
      case 'list': {
        // Every source the service reads, each entry marked by where it comes from (issue 39):
        // the config file's entries first (never their secrets or hashes), then the database's.
        const fromConfig = kind === 'client'
          ? ctx.config.clients.map((c) => ({ id: c.clientId, name: c.clientName, grants: c.allowedGrantTypes, scopes: c.allowedScopes, secrets: c.clientSecrets }))
          : ctx.config.apiResources.map((r) => ({ id: r.name, name: undefined, grants: [], scopes: r.scopes, secrets: r.secrets }));
        printList(kind, await admin.list(kind), fromConfig, json);
        return 0;
      }
      case 'test-auth':
        return testAuth(config, registry, store);
      case 'registration-token': {
        const maxUses = parseCount(str(values['max-uses']) ?? '1', '--max-uses');
        if (!config.registration.enabled) process.stderr.write('svc: warning: registration.enabled is false in this config; the token works once it is on.\n');
        const made = await createRegistrationTokens({ store, clock: { now: () => Date.now() } }).issueInitial(parseDuration(str(values['expires-in']) ?? '30d', '--expires-in'), maxUses);
        out(json
          ? `${JSON.stringify({ initialAccessToken: made.token, expires: iso(made.expiresAt), maxUses })}\n`
          : `initial access token (expires ${iso(made.expiresAt)}, registers at most ${maxUses} client${maxUses === 1 ? '' : 's'}): ${made.token}\n`);
        return 0;
      }
    }
    return act(admin, `${config.clientStores.refreshInterval}s`, () => Promise.resolve(1));
  }

  /** The actions the database and the admin API both do; `list` is each one's own (what it can see differs). */
  async function act(admin: ClientOperations, refresh: string, list: () => Promise<number>): Promise<number> {
    switch (action) {
      case 'add': {
        const id = needId();
        const secret = await admin.add(kind, id, await definitionOf(kind, values), { disabled: values.disabled === true });
        if (!json) out(`${kind === 'client' ? 'client' : 'API resource'} "${id}" added to the database.\n`);
        if (secret) printSecret(kind, id, secret, json);
        else if (json) out(`${JSON.stringify({ [kind === 'client' ? 'clientId' : 'name']: id })}\n`);
        return 0;
      }
      case 'list':
        return list();
      case 'show': {
        const record = await admin.show(kind, needId());
        const view = recordView(record);
        if (json) {
          out(`${JSON.stringify(view)}\n`);
          return 0;
        }
        const { secrets, ...fields } = view;
        out(Object.entries(fields).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join('\n') + '\n');
        out(secrets.length === 0 ? 'secrets: none\n' : `secrets:\n${table([['id', 'type', 'created', 'expires', 'description'], ...secrets.map((s) => [s.id, s.type, s.created, s.expires ?? '-', s.description ?? '-'])]).replace(/^(?=.)/gm, '  ')}`);
        return 0;
      }
      case 'update': {
        const id = needId();
        const changes = await definitionOf(kind, values);
        if (Object.keys(changes).length === 0) throw new CliError(`svc ${noun} update ${id}: name what to change (a field's flag such as --scope${kind === 'client' ? ', --grant or --access-token-lifetime' : ''}, see svc ${noun} --help, or --definition '<json>').`);
        await admin.update(kind, id, changes);
        if (!json) out(`${kind === 'client' ? 'client' : 'API resource'} "${id}" updated.\n`);
        return 0;
      }
      case 'disable':
      case 'enable': {
        const id = needId();
        await admin.setDisabled(kind, id, action === 'disable');
        if (!json) out(`${kind === 'client' ? 'client' : 'API resource'} "${id}" ${action}d; every node follows within ${refresh}.\n`);
        return 0;
      }
      case 'remove': {
        const id = needId();
        await admin.remove(kind, id);
        if (!json) out(`${kind === 'client' ? 'client' : 'API resource'} "${id}" removed.\n`);
        return 0;
      }
      case 'secret':
        return secret(admin);
    }
    return 1;
  }

  async function secret(admin: ClientOperations): Promise<number> {
    const id = needId();
    switch (args[0]) {
      case 'add': {
        const certificateFile = str(values.certificate);
        if (certificateFile !== undefined) return addCertificate(admin, id, certificateFile);
        if (str(values.type) !== undefined || str(values.value) !== undefined) return addTyped(admin, id);
        const expiresIn = str(values['expires-in']);
        const others = str(values['expire-others-in']);
        const made = await admin.addSecret(kind, id, {
          ...(expiresIn === undefined ? {} : { expiresIn: parseDuration(expiresIn, '--expires-in') }),
          ...(others === undefined ? {} : { expireOthersIn: parseDuration(others, '--expire-others-in') }),
          ...(str(values.description) === undefined ? {} : { description: str(values.description)! }),
        });
        printSecret(kind, id, made, json);
        return 0;
      }
      case 'expire': {
        const secretId = args[2];
        if (secretId === undefined) throw new CliError(`svc ${noun} secret expire needs <id> <secret_id> (see svc ${noun} show <id>).`);
        const at = await admin.expireSecret(kind, id, secretId, parseDuration(str(values.in) ?? '0', '--in'));
        out(json ? `${JSON.stringify({ secretId, expires: iso(at) })}\n` : `secret ${secretId} of "${id}" expires ${iso(at)}.\n`);
        return 0;
      }
      default: {
        const secretId = args[2];
        if (secretId === undefined) throw new CliError(`svc ${noun} secret remove needs <id> <secret_id> (see svc ${noun} show <id>).`);
        await admin.removeSecret(kind, id, secretId);
        if (!json) out(`secret ${secretId} of "${id}" removed.\n`);
        return 0;
      }
    }
  }

  /** `secret add <id> --type <type> --value <text>`: a secret whose value is not secret, e.g. a FederatedCredential. */
  async function addTyped(admin: ClientOperations, id: string): Promise<number> {
    const type = str(values.type);
    const value = str(values.value);
    if (type === undefined || value === undefined) throw new CliError(`svc ${noun} secret add --type and --value go together.`);
    const expiresIn = str(values['expires-in']);
    const added = await admin.addTypedSecret(kind, id, type, value, {
      ...(expiresIn === undefined ? {} : { expiresIn: parseDuration(expiresIn, '--expires-in') }),
      ...(str(values.description) === undefined ? {} : { description: str(values.description)! }),
    });
    const expires = added.expiresAt === undefined ? 'never' : iso(added.expiresAt);
    out(json
      ? `${JSON.stringify({ [kind === 'client' ? 'clientId' : 'name']: id, secretId: added.id, type, expires: added.expiresAt === undefined ? null : iso(added.expiresAt) })}\n`
      : `${type} secret ${added.id} of "${id}" added (expires ${expires}).\n`);
    return 0;
  }

  /** `secret add <id> --certificate <pem file>`: the client's certificate, for private_key_jwt or self-signed mutual TLS. */
  async function addCertificate(admin: ClientOperations, id: string, file: string): Promise<number> {
    let text: Buffer;
    try {
      text = await readFile(file);
    } catch (err) {
      throw new CliError(`--certificate: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`);
    }
    const expiresIn = str(values['expires-in']);
    const added = await admin.addCertificate(kind, id, text, {
      ...(expiresIn === undefined ? {} : { expiresIn: parseDuration(expiresIn, '--expires-in') }),
      ...(str(values.description) === undefined ? {} : { description: str(values.description)! }),
    });
    out(json
      ? `${JSON.stringify({ [kind === 'client' ? 'clientId' : 'name']: id, secretId: added.id, type: 'X509CertificateBase64', thumbprint: added.thumbprint, expires: iso(added.expiresAt) })}\n`
      : `certificate secret ${added.id} of "${id}" added (x5t#S256 ${added.thumbprint}, expires ${iso(added.expiresAt)}).\n`);
    return 0;
  }

  async function testAuth(config: ResolvedConfig, registry: PluginRegistry, store: Store): Promise<number> {
    const id = needId();
    const fromConfig = config.clients.find((c) => c.clientId === id);
    let found: Parameters<typeof diagnoseClientAuth>[1];
    let refused: readonly string[] = [];
    if (fromConfig) found = { client: fromConfig, source: 'config file', disabled: false };
    else {
      const record = await store.clientRecords.get('client', id);
      if (record) {
        const checker = createEntryChecker(config, registry);
        const checked = checker.client(entryOf(record), []);
        if (checked.ok) found = { client: checked.value, source: 'database', disabled: record.disabled };
        else refused = checked.problems;
      }
    }
    const method = str(values.method);
    const diagnosis = refused.length > 0
      ? { ok: false, findings: [`client "${id}" comes from the database`, 'every node refuses the stored entry:', ...refused.map((p) => `  ${p}`)] }
      : diagnoseClientAuth(id, found, registry, { method, now: Date.now() });
    out(json ? `${JSON.stringify(diagnosis)}\n` : `${diagnosis.findings.join('\n')}\n${diagnosis.ok ? 'would authenticate' : 'would fail'}\n`);
    return diagnosis.ok ? 0 : 1;
  }
}

/** Copies a config file's entry, hashed secrets and all, into the database. */
async function fromConfig(admin: ClientAdmin, raw: UserConfig, id: string): Promise<number> {
  const entry = raw.clients?.find((c) => c.clientId === id);
  if (!entry) throw new CliError(`--from-config: the config file defines no client "${id}".`);
  const { clientId: _id, clientSecrets = [], ...definition } = entry;
  const now = Date.now();
  const secrets: StoredSecret[] = clientSecrets.map((s, i) => ({
    id: `config-${i + 1}`, type: s.type ?? 'SharedSecret', value: s.value, description: s.description, createdAt: now,
    expiresAt: s.expiration === undefined ? undefined : Date.parse(s.expiration),
  }));
  await admin.add('client', id, definition as Record<string, unknown>, { secrets, fromConfig: true });
  out(`client "${id}" copied to the database with its ${secrets.length} stored secret${secrets.length === 1 ? '' : 's'}.\n`);
  process.stderr.write(`svc: now remove "${id}" from the config file before any node restarts: a client id two stores define stops start-up.\n`);
  return 0;
}
