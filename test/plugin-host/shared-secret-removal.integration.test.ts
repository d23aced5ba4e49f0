/**
 * Shared secrets are a plugin, not the core: in a copy of the real `plugins/` folder with
 * `shared-secret` deleted, the sample config no longer starts (its secrets have no validator),
 * and a service that does start takes no client secret in the header or the body, while the
 * other first-party plugins keep working. The same copy with the folder kept authenticates
 * the same secret, so the folder is the only difference. And no module of the core imports
 * anything from a plugin folder.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, firstPartyPlugins, postForm, repoRoot, startServer, type TestServer } from '../support/server.js';
import { processLimitMs } from '../support/svc-process.js';
import { makeKey, publicJwk, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const secret = 'removal-secret-4d2a';
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

let root: string;
let withoutSharedSecret: string;
let withSharedSecret: string;
let key: TestKey;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-no-shared-secret-'));
  // The copied plugins import jose, as they do inside the repository.
  symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  withoutSharedSecret = join(root, 'plugins');
  withSharedSecret = join(root, 'all-plugins');
  cpSync(firstPartyPlugins, withoutSharedSecret, { recursive: true });
  cpSync(firstPartyPlugins, withSharedSecret, { recursive: true });
  rmSync(join(withoutSharedSecret, 'shared-secret'), { recursive: true });
  // The sample config next to the copy: its pluginDirs (./plugins) is the copy without
  // shared-secret, and it loads none of the package's own plugins (those are these folders).
  const sample = readFileSync(join(repoRoot, 'svc.config.ts'), 'utf8');
  writeFileSync(join(root, 'svc.config.ts'), sample.replace('export default defineConfig({\n', 'export default defineConfig({\n  packagePlugins: [],\n'));
  key = await makeKey('P-256');
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the sample config without plugins/shared-secret', () => {
  it('does not start: every shared secret in it names a secret type nothing validates', async () => {
    const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const env = { ...process.env };
      delete env.SVC_CONFIG;
      execFile(process.execPath, [join(repoRoot, 'bin/svc.mjs'), 'start', '--config', join(root, 'svc.config.ts')], { cwd: root, env, timeout: processLimitMs }, (err, _stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('svc: cannot start [CONFIG_INVALID]');
    expect(run.stderr).toMatch(/^ {2}clients\[0\]\.clientSecrets\[0\]\.type: unknown secret type "SharedSecret" \(known: X509Thumbprint, X509Name, X509CertificateBase64, JsonWebKey\)$/m);
    expect(run.stderr).toMatch(/^ {2}apiResources\[0\]\.secrets\[0\]\.type: unknown secret type "SharedSecret"/m);
  });
});

describe('a service started without plugins/shared-secret', () => {
  let server: TestServer;
  let control: TestServer;

  const base: UserConfig = {
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
  };
  const keyed = () => ({
    clientId: 'keyed',
    clientSecrets: [{ type: 'JsonWebKey', value: JSON.stringify(publicJwk(key)) }],
    allowedGrantTypes: ['client_credentials'],
    allowedScopes: ['api1.read'],
  });

  beforeAll(async () => {
    [server, control] = await Promise.all([
      startServer({ ...base, pluginDirs: [withoutSharedSecret], clients: [keyed()] }),
      startServer({
        ...base,
        pluginDirs: [withSharedSecret],
        clients: [keyed(), { clientId: 'm2m', clientSecrets: [{ value: hashSecret(secret) }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), control?.close()]);
  });

  const failed = { status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed.' } };
  const outcome = (r: Awaited<ReturnType<typeof postForm>>) => ({ status: r.status, body: r.body });
  const cc = { grant_type: 'client_credentials' };

  it('loaded every first-party plugin of the copy but shared-secret', () => {
    const firstParty = readdirSync(firstPartyPlugins, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    const fromCopy = (s: TestServer, dir: string) => s.app.registry.plugins.filter((p) => p.source.startsWith(dir)).map((p) => p.name).sort();
    expect(firstParty).toContain('shared-secret');
    expect(fromCopy(server, withoutSharedSecret)).toEqual(firstParty.filter((name) => name !== 'shared-secret').sort());
    expect(fromCopy(control, withSharedSecret)).toEqual([...firstParty].sort());
  });

  it('answers a client secret in the body with 401 invalid_client; the copy with the folder issues a token', async () => {
    expect(outcome(await postForm(`${server.url}/connect/token`, { ...cc, client_id: 'keyed', client_secret: secret }))).toEqual(failed);
    expect((await postForm(`${control.url}/connect/token`, { ...cc, client_id: 'm2m', client_secret: secret })).status).toBe(200);
  });

  it('answers a client secret in a Basic header with 401 invalid_client; the copy with the folder issues a token', async () => {
    expect(outcome(await postForm(`${server.url}/connect/token`, cc, { authorization: basic('keyed', secret) }))).toEqual(failed);
    expect((await postForm(`${control.url}/connect/token`, cc, { authorization: basic('m2m', secret) })).status).toBe(200);
  });

  it('advertises no client_secret_* method, only the methods of the plugins left', async () => {
    const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc.token_endpoint_auth_methods_supported).toEqual(['private_key_jwt']);
    expect(JSON.stringify(doc)).not.toContain('client_secret_');
  });

  it('still authenticates a client with private_key_jwt', async () => {
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('keyed')
      .setSubject('keyed')
      .setAudience(server.url)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(key.privateKey);
    const reply = await postForm(`${server.url}/connect/token`, { ...cc, client_assertion_type: JWT_BEARER, client_assertion: assertion });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  });
});

describe('the core', () => {
  it('imports nothing from plugins/: every relative import under src/ stays inside src/', () => {
    const src = join(repoRoot, 'src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(50);
    const outside: string[] = [];
    for (const file of files) {
      const path = join(src, file);
      const text = readFileSync(path, 'utf8');
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        if (specifier!.startsWith('.') && relative(src, resolve(dirname(path), specifier!)).startsWith('..')) outside.push(`${file}: ${specifier}`);
        if (/(^|\/)plugins\//.test(specifier!)) outside.push(`${file}: ${specifier}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
