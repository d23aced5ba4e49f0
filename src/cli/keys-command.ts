/**
 * `svc keys [list | rewrap]`: the signing keys in the store, and how each is protected; `rewrap`
 * re-encrypts every stored key under the first of `signing.keyEncryptionKeys`, the step that
 * retires an old key-encryption key (after it, the old one can be removed from the config); the
 * stored page cookie secret (`pages/cookie-secret.ts`) is re-encrypted with them.
 * Works on the store the config names, with the server running or not: each key is rewritten
 * in one statement, and a server reads either form.
 */
import { loadConfig } from '../config/load.js';
import { createKeyProtector } from '../oauth/keys/key-protection.js';
import { newManagedKey } from '../oauth/keys/key-rotation.js';
import type { Logger } from '../sdk/contracts.js';
import { rewrapCookieSecret } from '../pages/cookie-secret.js';
import { totpSealName } from '../second-factor/second-factors.js';
import { createStore } from '../store/create-store.js';
import type { SigningKeyRecord } from '../store/store.js';
import { adminServer, call, readAll } from './admin-api-client.js';
import { CliError } from './user-facing-error.js';

// The command's own output says what happened.
const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silentLogger };
const iso = (ms: number | undefined): string => (ms === undefined ? '-' : new Date(ms).toISOString());

function table(records: readonly SigningKeyRecord[], protectionOf: (r: SigningKeyRecord) => string): string {
  const rows = [['kid', 'alg', 'created', 'activates', 'retires', 'protection'], ...records.map((r) => [
    r.kid, r.alg, iso(r.createdAt), iso(r.activatesAt), iso(r.retiresAt), protectionOf(r),
  ])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}

interface KeyItem { kid: string; alg: string; createdAt: string; activatesAt: string; retiresAt?: string; protection: string }

/** Keys as the admin API's `/signing-keys` answers them, in the table `list` prints. */
function tableOfItems(items: readonly KeyItem[]): string {
  const records = items.map((k) => ({ kid: k.kid, alg: k.alg, privateJwk: '', createdAt: Date.parse(k.createdAt), activatesAt: Date.parse(k.activatesAt), retiresAt: k.retiresAt === undefined ? undefined : Date.parse(k.retiresAt) }));
  const protection = new Map(items.map((k) => [k.kid, k.protection]));
  return table(records, (r) => protection.get(r.kid) ?? '-');
}

const noKeys = 'no signing keys in the store yet (the service creates them at its first start)\n';
const retiredLine = (kid: string): string => `signing key ${kid} retired: out of the JWKS, tokens it signed no longer verify.\n`;

/** `svc --server <admin URL> keys list|rotate|retire` (issue 39): the same through the admin API's `/signing-keys`. */
async function throughApi(url: string, action: string, kid: string | undefined, alg: string | undefined): Promise<number> {
  const server = adminServer(url);
  if (action === 'rotate') {
    const made = (await call(server, 'POST', '/signing-keys/rotation', { body: alg === undefined ? {} : { alg } })).body as { items: KeyItem[] };
    process.stdout.write(tableOfItems(made.items));
    return 0;
  }
  if (action === 'retire') {
    const path = `/signing-keys/${encodeURIComponent(kid!)}`;
    const { etag } = await call(server, 'GET', path);
    await call(server, 'DELETE', path, { ifMatch: etag ?? '*' });
    process.stdout.write(retiredLine(kid!));
    return 0;
  }
  const items = await readAll<KeyItem>(server, '/signing-keys');
  process.stdout.write(items.length === 0 ? noKeys : tableOfItems(items));
  return 0;
}

export async function keysCommand(action: string | undefined, configPath: string | undefined, server?: string, options: { kid?: string | undefined; alg?: string | undefined } = {}): Promise<number> {
  if (action !== undefined && !['list', 'rewrap', 'rotate', 'retire'].includes(action)) {
    throw new CliError(`unknown keys action "${action}": use "svc keys list", "svc keys rotate", "svc keys retire <kid>" or "svc keys rewrap".`);
  }
  if (action === 'retire' && options.kid === undefined) throw new CliError('svc keys retire needs <kid> (svc keys list shows them).');
  if (server !== undefined) {
    if (action === 'rewrap') throw new CliError('svc --server works with keys list, rotate and retire; rewrap re-encrypts the store itself: run svc keys rewrap with --config.');
    return throughApi(server, action ?? 'list', options.kid, options.alg);
  }
  const { config } = await loadConfig({ path: configPath });
  const protector = createKeyProtector(config.signing.keyEncryptionKeys);
  const store = await createStore(config.store, config.configDir);
  try {
    await store.migrate();
    const records = await store.listSigningKeys();
    if (action === 'rotate') return await rotate(records);
    if (action === 'retire') return await retire(records, options.kid!);
    if (action !== 'rewrap') {
      process.stdout.write(records.length === 0 ? noKeys : table(records, protector.protectionOf));
      return 0;
    }
    if (!protector.enabled) {
      throw new CliError('no key-encryption key is configured: set signing.keyEncryptionKeys first (see docs/guides/operations.md, "Signing keys").');
    }
    let rewrapped = 0;
    for (const record of records) {
      if (!protector.needsRewrap(record)) continue;
      // Opening first: a key no configured key-encryption key opens stops here, naming it.
      const privateJwk = protector.seal(record.kid, record.alg, protector.open(record));
      await store.updateSigningKey(record.kid, { privateJwk });
      rewrapped++;
    }
    process.stdout.write(`${rewrapped} of ${records.length} signing keys re-encrypted under key-encryption key ${protector.currentKekId}\n`);
    if (await rewrapCookieSecret(store, protector)) process.stdout.write(`the page cookie secret re-encrypted under key-encryption key ${protector.currentKekId}\n`);
    // Issue 35: the users' TOTP secrets, sealed the same way; one written meanwhile by a new enrolment wins.
    const secrets = await store.factors.listTotpSecrets();
    let resealed = 0;
    for (const { subjectId, secret } of secrets) {
      if (protector.protectionOfSecret(secret) === protector.currentKekId) continue;
      const name = totpSealName(subjectId);
      if (await store.factors.resealTotp(subjectId, secret, protector.sealSecret(name, protector.openSecret(name, secret)))) resealed++;
    }
    if (secrets.length > 0) process.stdout.write(`${resealed} of ${secrets.length} one-time code secrets re-encrypted under key-encryption key ${protector.currentKekId}\n`);
    return 0;
  } finally {
    await store.close();
  }

  /**
   * A successor for each managed algorithm (or `--alg`'s), published at once and signing after
   * `signing.propagationTime`, as the admin API's rotation makes it; the running nodes load it
   * at their next key refresh, and the key it replaces retires as in the scheduled rotation.
   */
  async function rotate(records: readonly SigningKeyRecord[]): Promise<number> {
    const managed = [...new Set(records.map((r) => r.alg))];
    if (options.alg !== undefined && !managed.includes(options.alg)) {
      throw new CliError(`The store holds no key of ${options.alg}: the service manages keys only for the algorithms no configured key (signing.keys) covers (${managed.join(', ') || 'none'}).`);
    }
    const clock = { now: () => Date.now() };
    const made: SigningKeyRecord[] = [];
    for (const alg of options.alg === undefined ? managed : [options.alg]) {
      made.push(await newManagedKey({ store, clock, logger: silentLogger, protector }, alg, clock.now() + config.signing.propagationTime * 1000));
    }
    process.stdout.write(table(made, protector.protectionOf));
    return 0;
  }

  /** Out of the JWKS now (a key believed compromised): every node drops it at its next key refresh. */
  async function retire(records: readonly SigningKeyRecord[], kid: string): Promise<number> {
    const key = records.find((r) => r.kid === kid);
    if (!key) throw new CliError(`Signing key "${kid}" does not exist.`);
    const now = Date.now();
    if (key.retiresAt === undefined || key.retiresAt > now) await store.updateSigningKey(kid, { retiresAt: now });
    process.stdout.write(retiredLine(kid));
    return 0;
  }
}
