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
import { rewrapCookieSecret } from '../pages/cookie-secret.js';
import { totpSealName } from '../second-factor/second-factors.js';
import { createStore } from '../store/create-store.js';
import type { SigningKeyRecord } from '../store/store.js';
import { adminServer, readAll } from './admin-api-client.js';
import { CliError } from './user-facing-error.js';

const iso = (ms: number | undefined): string => (ms === undefined ? '-' : new Date(ms).toISOString());

function table(records: readonly SigningKeyRecord[], protectionOf: (r: SigningKeyRecord) => string): string {
  const rows = [['kid', 'alg', 'created', 'activates', 'retires', 'protection'], ...records.map((r) => [
    r.kid, r.alg, iso(r.createdAt), iso(r.activatesAt), iso(r.retiresAt), protectionOf(r),
  ])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}

/** `svc --server <admin URL> keys list` (issue 39): the same table from the admin API's `/signing-keys`. */
async function listThroughApi(url: string): Promise<number> {
  const items = await readAll<{ kid: string; alg: string; createdAt: string; activatesAt: string; retiresAt?: string; protection: string }>(adminServer(url), '/signing-keys');
  const records = items.map((k) => ({ kid: k.kid, alg: k.alg, privateJwk: '', createdAt: Date.parse(k.createdAt), activatesAt: Date.parse(k.activatesAt), retiresAt: k.retiresAt === undefined ? undefined : Date.parse(k.retiresAt) }));
  const protection = new Map(items.map((k) => [k.kid, k.protection]));
  process.stdout.write(records.length === 0 ? 'no signing keys in the store yet (the service creates them at its first start)\n' : table(records, (r) => protection.get(r.kid) ?? '-'));
  return 0;
}

export async function keysCommand(action: string | undefined, configPath: string | undefined, server?: string): Promise<number> {
  if (action !== undefined && action !== 'list' && action !== 'rewrap') {
    throw new CliError(`unknown keys action "${action}": use "svc keys list" or "svc keys rewrap".`);
  }
  if (server !== undefined) {
    if (action === 'rewrap') throw new CliError('svc --server works with keys list; rewrap re-encrypts the store itself: run svc keys rewrap with --config.');
    return listThroughApi(server);
  }
  const { config } = await loadConfig({ path: configPath });
  const protector = createKeyProtector(config.signing.keyEncryptionKeys);
  const store = await createStore(config.store, config.configDir);
  try {
    await store.migrate();
    const records = await store.listSigningKeys();
    if (action !== 'rewrap') {
      process.stdout.write(records.length === 0 ? 'no signing keys in the store yet (the service creates them at its first start)\n' : table(records, protector.protectionOf));
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
}
