/**
 * `svc clients` and `svc apis` (issue 19), run through the CLI's own entry (`main`) in process
 * against a SQLite file, as the server would read it. One spawned run checks the real binary.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
import type { StoredRecord } from '../../src/store/client-records.js';
import { firstPartyPlugins } from '../support/server.js';
import { processLimitMs, runCli } from '../support/svc-process.js';
import { testKeyFiles } from '../support/test-keys.js';
import { certificateOf, makeKey } from '../plugins/private-key-jwt/helpers.js';

let dir: string;
let configFile: string;
let memoryConfig: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-clients-cli-'));
  mkdirSync(join(dir, 'plugins'));
  for (const p of ['shared-secret', 'private-key-jwt']) symlinkSync(join(firstPartyPlugins, p), join(dir, 'plugins', p), 'dir');
  const base = {
    // Every command builds the app to learn the plugins: with keys given, none generates one.
    signing: { keys: testKeyFiles(dir) },
    apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read', 'api1.write'] }],
    clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret'), description: 'first' }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],
  };
  configFile = join(dir, 'svc.config.json');
  writeFileSync(configFile, JSON.stringify({ ...base, store: 'sqlite:./data/svc.db' }));
  memoryConfig = join(dir, 'memory.svc.json');
  writeFileSync(memoryConfig, JSON.stringify({ ...base, store: 'memory' }));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `svc <args> --config <file>` in process: exit code and what it wrote. */
async function svc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    const code = await main([...args, '--config', configFile]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** The record as stored, read around the CLI. */
async function stored(kind: 'client' | 'apiResource', id: string): Promise<StoredRecord | undefined> {
  const store = openSqlite(join(dir, 'data', 'svc.db'));
  try {
    return await store.clientRecords.get(kind, id);
  } finally {
    await store.close();
  }
}

const secretLine = /^secret ([0-9a-f]{8}): ([\w-]{43})\n$/;

describe('svc clients', () => {
  let first: { id: string; value: string };

  it('add generates a secret, prints it once and stores only its SHA-256 hash', async () => {
    const run = await svc('clients', 'add', 'reports', '--grant', 'client_credentials', '--scope', 'api1.read', '--scope', 'api1.write', '--name', 'Reports job');
    expect(run.code).toBe(0);
    const [added, secret] = run.stdout.split(/(?<=\n)/);
    expect(added).toBe('client "reports" added to the database.\n');
    const [, id, value] = secretLine.exec(secret!)!;
    first = { id: id!, value: value! };
    expect(run.stderr).toBe('svc: the secret is shown this once; only its hash is stored.\n');
    const record = await stored('client', 'reports');
    expect(record).toMatchObject({
      definition: { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read', 'api1.write'], clientName: 'Reports job' },
      disabled: false,
      secrets: [{ id: first.id, type: 'SharedSecret', value: hashSecret(first.value), expiresAt: undefined }],
    });
  });

  it('add --json prints the secret for scripts', async () => {
    const run = await svc('clients', 'add', 'batch', '--grant', 'client_credentials', '--scope', 'api1.read', '--json');
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(answer).toEqual({ clientId: 'batch', secretId: expect.stringMatching(/^[0-9a-f]{8}$/), secret: expect.stringMatching(/^[\w-]{43}$/), expires: null });
    expect((await stored('client', 'batch'))!.secrets[0]!.value).toBe(hashSecret(answer.secret as string));
  });

  it('add refuses, in one line per problem, what a node would refuse', async () => {
    expect(await svc('clients', 'add', 'odd', '--grant', 'magic', '--scope', 'api9')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'svc: client "odd" is not valid:\n  --scope api9: unknown scope "api9" (known: api1.read, api1.write)\n',
    });
    expect((await svc('clients', 'add', 'm2m', '--grant', 'client_credentials', '--scope', 'api1.read')).stderr).toBe(
      'svc: client "m2m" is defined in the config file: remove it there first (a client id two stores define stops start-up).\n',
    );
    expect((await svc('clients', 'add', 'reports', '--grant', 'client_credentials', '--scope', 'api1.read')).stderr).toBe('svc: client "reports" is already in the database.\n');
    expect(await stored('client', 'odd')).toBeUndefined();
  });

  it('add and update refuse a public client with client_credentials, and a redirect URI that cannot be meant, saying what to write (issue 33)', async () => {
    expect(await svc('clients', 'add', 'pub', '--public', '--grant', 'client_credentials', '--scope', 'api1.read')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: client "pub" is not valid:\n  --grant client_credentials: client_credentials needs a confidential client (RFC 6749 §4.4): a public client (--no-require-client-secret) would give tokens to anyone who knows its id; give it a secret or remove the grant\n',
    });
    expect(await stored('client', 'pub')).toBeUndefined();
    const web = ['--public', '--grant', 'authorization_code', '--scope', 'api1.read'];
    expect((await svc('clients', 'add', 'web', ...web, '--redirect-uri', 'localhost:3000/callback')).stderr).toBe(
      'svc: client "web" is not valid:\n  --redirect-uri localhost:3000/callback: a redirect URI needs its scheme: without one, "host:port/path" is read as a custom scheme; write "http://localhost:3000/callback"\n',
    );
    expect((await svc('clients', 'add', 'web', ...web, '--redirect-uri', 'https://app.example.com/*')).stderr).toMatch(/^svc: client "web" is not valid:\n {2}--redirect-uri https:\/\/app\.example\.com\/\*: a redirect URI is compared as an exact string \(RFC 9700 §2\.1\), so "\*" is no wildcard; list each URI/);
    expect(await svc('clients', 'add', 'web', ...web, '--redirect-uri', 'http://localhost:3000/callback')).toMatchObject({ code: 0 });
    expect((await svc('clients', 'update', 'web', '--redirect-uri', 'HTTP://LOCALHOST:3000/cb')).stderr).toBe(
      'svc: client "web" is not valid:\n  --redirect-uri HTTP://LOCALHOST:3000/cb: a redirect URI is compared as an exact string (RFC 9700 §2.1) and must be written as a browser sends it back; write "http://localhost:3000/cb"\n',
    );
    expect((await svc('clients', 'update', 'web', '--grant', 'client_credentials')).stderr).toMatch(/^svc: client "web" is not valid:\n {2}--grant client_credentials: client_credentials needs a confidential client/);
    expect((await stored('client', 'web'))!.definition).toMatchObject({ allowedGrantTypes: ['authorization_code'], redirectUris: ['http://localhost:3000/callback'] });
    await svc('clients', 'remove', 'web');
  });

  it('every field has its flag, and a problem names the flag that was typed (issue 39)', async () => {
    expect(await svc('clients', 'add', 'bare')).toEqual({
      code: 1, stdout: '',
      stderr: 'svc: client "bare" is not valid:\n  --grant: required (--grant <value>, repeatable)\n  --scope: required (--scope <value>, repeatable)\n',
    });
    expect((await svc('clients', 'add', 'oidc', '--grant', 'client_credentials', '--scope', 'openid')).stderr).toBe(
      'svc: client "oidc" is not valid:\n  --scope openid: unknown scope "openid" (known: api1.read, api1.write); "openid" is an identity scope: define it in identityResources, e.g. { name: "openid", claims: ["sub"] }\n',
    );
    expect((await svc('clients', 'add', 'offline', '--grant', 'client_credentials', '--scope', 'offline_access')).stderr).toBe(
      'svc: client "offline" is not valid:\n  --scope offline_access: offline_access is not listed; set --allow-offline-access instead\n',
    );
    const added = await svc('clients', 'add', 'tuned', '--grant', 'client_credentials', '--scope', 'api1.read', '--allow-offline-access', '--access-token-lifetime', '600',
      '--access-token-type', 'reference', '--no-require-pkce', '--require-dpop', '--allowed-cors-origin', 'https://a.example', '--allowed-cors-origin', 'https://b.example');
    expect(added.code).toBe(0);
    expect((await stored('client', 'tuned'))!.definition).toEqual({
      allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'], allowOfflineAccess: true, accessTokenLifetime: 600, accessTokenType: 'reference',
      requirePkce: false, requireDPoP: true, allowedCorsOrigins: ['https://a.example', 'https://b.example'],
    });
    expect((await svc('clients', 'update', 'tuned', '--access-token-type', 'opaque')).stderr).toBe(
      'svc: client "tuned" is not valid:\n  --access-token-type: unknown value "opaque" (allowed: jwt, reference)\n',
    );
    expect((await svc('clients', 'update', 'tuned', '--access-token-lifetime', '10m')).stderr).toBe('svc: --access-token-lifetime takes a whole number, got "10m".\n');
    expect((await svc('clients', 'update', 'tuned', '--require-dpop', '--no-require-dpop')).stderr).toBe('svc: --require-dpop and --no-require-dpop contradict each other; give one.\n');
    expect((await svc('clients', 'update', 'tuned', '--introspection-signing-algorithm', 'ES256')).stderr).toBe(
      'svc: --introspection-signing-algorithm is a field of API resources (svc apis), not of clients.\n',
    );
    expect((await svc('clients', 'update', 'tuned', '--no-allow-offline-access')).code).toBe(0);
    expect((await stored('client', 'tuned'))!.definition).toMatchObject({ allowOfflineAccess: false, accessTokenLifetime: 600 });
    await svc('clients', 'remove', 'tuned');
  });

  it('list and show never print a secret or a hash', async () => {
    const list = await svc('clients', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^client_id\s+name\s+grant types\s+scopes\s+secrets\s+state\s+last used\s+source$/);
    expect(list.stdout).toMatch(/^reports\s+Reports job\s+client_credentials\s+api1\.read,api1\.write\s+1 live of 1\s+enabled\s+-\s+database$/m);
    // The config file's clients are listed too, marked as such (issue 39).
    expect(list.stdout).toMatch(/^m2m\s+-\s+client_credentials\s+\S+\s+1 live of 1\s+enabled\s+-\s+config$/m);
    const show = await svc('clients', 'show', 'reports');
    expect(show.stdout).toContain('clientId: reports\ndisabled: false\n');
    expect(show.stdout).toMatch(new RegExp(`^ {2}${first.id}\\s+SharedSecret\\s+\\S+Z\\s+-\\s+-$`, 'm'));
    const json = await svc('clients', 'show', 'reports', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ clientId: 'reports', clientName: 'Reports job', secrets: [{ id: first.id, type: 'SharedSecret', expires: null }] });
    for (const run of [list, show, json, await svc('clients', 'list', '--json')]) {
      expect(run.stdout).not.toContain(first.value);
      expect(run.stdout).not.toContain(hashSecret(first.value));
    }
    expect((await svc('clients', 'show', 'm2m')).stderr).toBe('svc: client "m2m" is not in the database (it is defined in the config file, which the CLI does not edit).\n');
  });

  it('update replaces the named fields, checked like add', async () => {
    expect(await svc('clients', 'update', 'reports', '--scope', 'api1.read', '--definition', '{"accessTokenLifetime": 600}')).toMatchObject({ code: 0, stdout: 'client "reports" updated.\n' });
    expect((await stored('client', 'reports'))!.definition).toMatchObject({ allowedScopes: ['api1.read'], accessTokenLifetime: 600, clientName: 'Reports job' });
    expect((await svc('clients', 'update', 'reports', '--definition', '{"accessTokenLifetime": -5}')).stderr).toMatch(/^svc: client "reports" is not valid:\n {2}client "reports"\.accessTokenLifetime: /);
    expect((await svc('clients', 'update', 'reports')).stderr).toMatch(/^svc: svc clients update reports: name what to change/);
  });

  it('secret add rotates with an overlap; secret expire and remove act by id', async () => {
    const run = await svc('clients', 'secret', 'add', 'reports', '--expire-others-in', '7d', '--description', 'second');
    expect(run.code).toBe(0);
    const [, id, value] = secretLine.exec(run.stdout)!;
    let record = (await stored('client', 'reports'))!;
    const old = record.secrets.find((s) => s.id === first.id)!;
    // The old secret works for the overlap of seven days more, the new one for good.
    expect(old.expiresAt! - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(record.secrets.find((s) => s.id === id)).toMatchObject({ value: hashSecret(value!), description: 'second', expiresAt: undefined });

    expect(await svc('clients', 'secret', 'expire', 'reports', first.id)).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^secret ${first.id} of "reports" expires \\S+Z\\.\\n$`)) });
    record = (await stored('client', 'reports'))!;
    expect(record.secrets.find((s) => s.id === first.id)!.expiresAt).toBeLessThanOrEqual(Date.now());
    expect((await svc('clients', 'secret', 'expire', 'reports', 'nope')).stderr).toBe('svc: client "reports" has no secret "nope" (see its secrets with show).\n');

    expect(await svc('clients', 'secret', 'remove', 'reports', first.id)).toMatchObject({ code: 0, stdout: `secret ${first.id} of "reports" removed.\n` });
    // The last secret of a confidential client stays: without it every node would refuse the client.
    const last = await svc('clients', 'secret', 'remove', 'reports', id!);
    expect(last.code).toBe(1);
    expect(last.stderr).toContain('client "reports".clientSecrets: a confidential client needs at least one secret');
    expect((await stored('client', 'reports'))!.secrets.map((s) => s.id)).toEqual([id]);
  });

  it('secret add --certificate stores a PEM certificate as an X509CertificateBase64 secret, expiring with it', async () => {
    const key = await makeKey('P-256');
    const notAfter = Math.floor(Date.now() / 1000 + 30 * 86_400) * 1000;
    const der = Buffer.from(await certificateOf(key, { notBefore: Date.now() - 86_400_000, notAfter }));
    const pemFile = join(dir, 'laptop.pem');
    writeFileSync(pemFile, `-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`);
    const thumbprint = createHash('sha256').update(der).digest('base64url');

    expect((await svc('clients', 'add', 'keyed', '--grant', 'client_credentials', '--scope', 'api1.read')).code).toBe(0);
    const run = await svc('clients', 'secret', 'add', 'keyed', '--certificate', pemFile, '--description', 'laptop');
    expect(run.stderr).toBe('');
    const [, id] = /^certificate secret ([0-9a-f]{8}) of "keyed" added \(x5t#S256 (\S+), expires (\S+)\)\.\n$/.exec(run.stdout) ?? [];
    expect(run.stdout).toBe(`certificate secret ${id} of "keyed" added (x5t#S256 ${thumbprint}, expires ${new Date(notAfter).toISOString()}).\n`);
    expect((await stored('client', 'keyed'))!.secrets.find((s) => s.id === id)).toMatchObject({
      type: 'X509CertificateBase64', value: der.toString('base64'), description: 'laptop', expiresAt: notAfter,
    });
    expect((await svc('clients', 'test-auth', 'keyed', '--method', 'private_key_jwt')).stdout).toContain('private_key_jwt: ok');

    const json = await svc('clients', 'secret', 'add', 'keyed', '--certificate', pemFile, '--expires-in', '1d', '--json');
    expect(JSON.parse(json.stdout)).toEqual({ clientId: 'keyed', secretId: expect.stringMatching(/^[0-9a-f]{8}$/), type: 'X509CertificateBase64', thumbprint, expires: expect.stringMatching(/Z$/) });
    expect(await svc('clients', 'secret', 'add', 'keyed', '--certificate', join(dir, 'missing.pem'))).toEqual({
      code: 1, stdout: '', stderr: `svc: --certificate: cannot read ${join(dir, 'missing.pem')} (ENOENT).\n`,
    });
    expect(await svc('clients', 'secret', 'add', 'keyed', '--certificate', configFile)).toMatchObject({ code: 1, stderr: expect.stringMatching(/^svc: not a PEM or DER X\.509 certificate \(/) });
    expect((await svc('clients', 'remove', 'keyed')).code).toBe(0);
  });

  it('disable and enable', async () => {
    expect((await svc('clients', 'disable', 'batch')).stdout).toBe('client "batch" disabled; every node follows within 5s.\n');
    expect((await stored('client', 'batch'))!.disabled).toBe(true);
    expect((await svc('clients', 'list')).stdout).toMatch(/^batch\s.*\sdisabled\s+-\s+database$/m);
    expect((await svc('clients', 'enable', 'batch')).stdout).toBe('client "batch" enabled; every node follows within 5s.\n');
    expect((await stored('client', 'batch'))!.disabled).toBe(false);
  });

  it('add --from-config copies the config entry with its stored hashes', async () => {
    const run = await svc('clients', 'add', 'm2m', '--from-config');
    expect(run).toMatchObject({ code: 0, stdout: 'client "m2m" copied to the database with its 1 stored secret.\n' });
    expect(run.stderr).toContain('now remove "m2m" from the config file before any node restarts');
    expect(await stored('client', 'm2m')).toMatchObject({ secrets: [{ id: 'config-1', value: hashSecret('m2m-secret'), description: 'first' }] });
    expect(await svc('clients', 'remove', 'm2m')).toMatchObject({ code: 0, stdout: 'client "m2m" removed.\n' });
  });

  describe('test-auth explains why an authentication would fail', () => {
    const testAuth = (id: string, ...more: string[]) => svc('clients', 'test-auth', id, ...more);

    it('a client that would authenticate', async () => {
      expect(await testAuth('batch')).toEqual({
        code: 0,
        stdout: 'client "batch" comes from the database\nclient_secret_basic: ok, 1 usable secret\nclient_secret_post: ok, 1 usable secret\nprivate_key_jwt: the client has no secret of a kind this method checks (needs X509CertificateBase64 or JsonWebKey or FederatedCredential)\nself_signed_tls_client_auth: the client has no secret of a kind this method checks (needs X509Thumbprint or X509Name or X509CertificateBase64)\ntls_client_auth: the client has no secret of a kind this method checks (needs X509Thumbprint or X509Name or X509CertificateBase64)\nwould authenticate\n',
        stderr: '',
      });
      expect((await testAuth('m2m')).stdout).toMatch(/^client "m2m" comes from the config file\n/);
    });

    it('unknown, disabled, method not allowed, no secret of that kind', async () => {
      expect(await testAuth('nobody')).toMatchObject({ code: 1, stdout: 'unknown client: neither the config file nor the database defines "nobody"\nwould fail\n' });
      await svc('clients', 'disable', 'batch');
      expect((await testAuth('batch')).stdout).toBe('client "batch" comes from the database\ndisabled: every authentication is refused (svc clients enable to allow it again)\nwould fail\n');
      await svc('clients', 'enable', 'batch');
      await svc('clients', 'update', 'batch', '--definition', '{"tokenEndpointAuthMethods": ["client_secret_post"]}');
      expect(await testAuth('batch', '--method', 'client_secret_basic')).toMatchObject({
        code: 1, stdout: 'client "batch" comes from the database\nclient_secret_basic: not allowed, the client\'s tokenEndpointAuthMethods are client_secret_post\nwould fail\n',
      });
      expect((await testAuth('batch', '--method', 'private_key_jwt')).stdout).toContain('private_key_jwt: not allowed');
      await svc('clients', 'update', 'batch', '--definition', '{"tokenEndpointAuthMethods": null}');
      expect((await testAuth('batch', '--method', 'private_key_jwt')).stdout).toContain('private_key_jwt: the client has no secret of a kind this method checks');
      expect((await testAuth('batch', '--method', 'tls_client_auth')).stdout).toContain('tls_client_auth: the client has no secret of a kind this method checks');
      expect((await testAuth('batch', '--method', 'client_secret_jwt')).stdout).toContain('client_secret_jwt: no loaded plugin provides this method');
    });

    it('every secret expired, and a stored value that is not a hash', async () => {
      const store = openSqlite(join(dir, 'data', 'svc.db'));
      try {
        const now = Date.now();
        const secret = (id: string, value: string, expiresAt?: number) => ({ id, type: 'SharedSecret', value, description: undefined, createdAt: now, expiresAt });
        await store.clientRecords.add({ kind: 'client', id: 'stale', definition: { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }, disabled: false, createdAt: now, secrets: [secret('s1', hashSecret('x'), now - 1000)] });
        await store.clientRecords.add({ kind: 'client', id: 'plain', definition: { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }, disabled: false, createdAt: now, secrets: [secret('s1', 'correct-horse-battery'), secret('s2', 'a'.repeat(64))] });
      } finally {
        await store.close();
      }
      const stale = await testAuth('stale', '--method', 'client_secret_basic');
      expect(stale.code).toBe(1);
      expect(stale.stdout).toMatch(/^client_secret_basic: every secret of that kind has expired \(the last at \S+Z\); add one with svc clients secret add$/m);
      const plain = await testAuth('plain', '--method', 'client_secret_post');
      expect(plain.code).toBe(1);
      expect(plain.stdout.split('\n').filter((l) => l.includes('not a 32- or 64-byte base64 hash'))).toEqual([
        'client_secret_post: secret #1 is not a 32- or 64-byte base64 hash (the secret itself, or hex? store the output of svc hash-secret)',
        'client_secret_post: secret #2 is not a 32- or 64-byte base64 hash (the secret itself, or hex? store the output of svc hash-secret)',
      ]);
      // Nothing it prints is a stored value.
      expect(plain.stdout).not.toContain('correct-horse-battery');
    });
  });

  it('remove, and the errors of a missing argument or action', async () => {
    expect(await svc('clients', 'remove', 'batch')).toMatchObject({ code: 0, stdout: 'client "batch" removed.\n' });
    expect((await svc('clients', 'remove', 'batch')).stderr).toBe('svc: client "batch" is not in the database.\n');
    expect((await svc('clients', 'show')).stderr).toBe('svc: svc clients show needs <client_id>.\n');
    expect((await svc('clients', 'rename', 'x')).stderr).toMatch(/^svc: unknown action "rename": use one of: add, list, show/);
    expect((await svc('clients', 'secret', 'rotate', 'x')).stderr).toBe('svc: svc clients secret takes add, expire or remove.\n');
    expect((await svc('clients', 'secret', 'add', 'reports', '--expires-in', 'soon')).stderr).toBe('svc: --expires-in takes a duration such as 3600, 15m, 12h or 7d, got "soon".\n');
  });
});

describe('svc clients registration-token', () => {
  it('prints an initial access token once and stores only its hash, warning while registration is off', async () => {
    const run = await svc('clients', 'registration-token', '--expires-in', '1d', '--json');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('svc: warning: registration.enabled is false in this config; the token works once it is on.\n');
    const { initialAccessToken, expires } = JSON.parse(run.stdout) as { initialAccessToken: string; expires: string };
    expect(initialAccessToken).toMatch(/^[\w-]{43}$/);
    expect(Date.parse(expires) - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    const store = openSqlite(join(dir, 'data', 'svc.db'));
    try {
      expect((await store.get(initialAccessToken))?.type).toBe('registration_initial_token');
    } finally {
      await store.close();
    }
    const rows = new BetterSqlite3(join(dir, 'data', 'svc.db'), { readonly: true });
    try {
      expect(JSON.stringify(rows.prepare('select * from persisted_grants').all())).not.toContain(initialAccessToken);
    } finally {
      rows.close();
    }
  });
});

describe('svc clients registration-token --max-uses (issue 33)', () => {
  it('gives the token a quota of registrations, 1 unless --max-uses says more', async () => {
    const one = await svc('clients', 'registration-token');
    expect(one.stdout).toMatch(/^initial access token \(expires \S+Z, registers at most 1 client\): [\w-]{43}\n$/);
    const run = await svc('clients', 'registration-token', '--max-uses', '25', '--json');
    const { initialAccessToken, maxUses } = JSON.parse(run.stdout) as { initialAccessToken: string; maxUses: number };
    expect(maxUses).toBe(25);
    const store = openSqlite(join(dir, 'data', 'svc.db'));
    try {
      expect(JSON.parse((await store.get(initialAccessToken))!.data)).toEqual({ maxUses: 25, uses: 0 });
    } finally {
      await store.close();
    }
    expect((await svc('clients', 'registration-token', '--max-uses', '0')).stderr).toBe('svc: --max-uses takes a whole number from 1 to 1000000, got "0".\n');
  });
});

describe('svc apis', () => {
  it('add, show, secret add and remove an API resource', async () => {
    const run = await svc('apis', 'add', 'api2', '--scope', 'api1.write');
    expect(run.code).toBe(0);
    const [, id, value] = secretLine.exec(run.stdout.split(/(?<=\n)/)[1]!)!;
    expect(await stored('apiResource', 'api2')).toMatchObject({ definition: { scopes: ['api1.write'] }, secrets: [{ id, value: hashSecret(value!) }] });
    expect(JSON.parse((await svc('apis', 'show', 'api2', '--json')).stdout)).toMatchObject({ name: 'api2', scopes: ['api1.write'], secrets: [{ id }] });
    expect((await svc('apis', 'list')).stdout).toMatch(/^api2\s+api1\.write\s+1 live of 1\s+enabled\s+-\s+database$/m);
    expect((await svc('apis', 'add', 'api1', '--scope', 'api1.read')).stderr).toBe('svc: API resource "api1" is defined in the config file: remove it there first (a client id two stores define stops start-up).\n');
    expect((await svc('apis', 'add', 'api3', '--scope', 'nope')).stderr).toMatch(/^svc: API resource "api3" is not valid:\n {2}--scope nope: unknown scope "nope"/);
    expect((await svc('apis', 'test-auth', 'api2')).stderr).toMatch(/^svc: unknown action "test-auth"/);
    expect(await svc('apis', 'disable', 'api2')).toMatchObject({ code: 0 });
    expect(await svc('apis', 'remove', 'api2')).toMatchObject({ code: 0, stdout: 'API resource "api2" removed.\n' });
  });
});

describe('the svc binary', () => {
  it('refuses a memory store, and lists clients from the SQLite file', async () => {
    // Two processes at once, not one after the other: each spends seconds loading the sources.
    const [refused, run] = await Promise.all([runCli('clients', 'list', '--config', memoryConfig), runCli('clients', 'list', '--json', '--config', configFile)]);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: the config\'s store is "memory": nothing written here would reach the service. Use "sqlite:<path>" or "postgres://...".\n',
    });
    expect(run.code).toBe(0);
    const listed = JSON.parse(run.stdout) as Array<{ clientId: string; source: string }>;
    expect(listed.filter((c) => c.source === 'database').map((c) => c.clientId)).toEqual(['plain', 'reports', 'stale']);
    expect(listed.filter((c) => c.source === 'config').map((c) => c.clientId)).toEqual(['m2m']);
    // Bounded by the processes' own limit (runCli), not by the default per test: loading the
    // sources costs each over a second of CPU, which a machine busy with other work stretches.
  }, processLimitMs + 30_000);
});
