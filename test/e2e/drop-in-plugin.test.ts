/**
 * The drop-in experience (issue 5): a plugin folder written only against `svc/sdk`, in
 * TypeScript, copied into a fresh plugin dir, served by the real CLI with no build step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, firstPartyPlugins, freePort, postForm, repoRoot } from '../support/server.js';

const fixture = fileURLToPath(new URL('../fixtures/drop-in/api-key', import.meta.url));
const cli = join(repoRoot, 'bin/svc.mjs');

let dir: string;
let configFile: string;
let child: ChildProcess;
let url: string;
let output = '';

/** Resolves with the URL from the "svc listening" log line; rejects if the process ends first. */
function listening(proc: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'svc listening' && entry.url) resolve(entry.url);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    proc.once('exit', (code) => reject(new Error(`svc exited with ${code} before listening:\n${output}`)));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-drop-in-'));
  cpSync(fixture, join(dir, 'plugins', 'api-key'), { recursive: true });
  configFile = join(dir, 'svc.config.ts');
  const port = await freePort();
  writeFileSync(
    configFile,
    `import { defineConfig } from 'svc/sdk';

export default defineConfig({
  port: ${port},
  store: 'memory',
  logLevel: 'info',
  pluginDirs: ['./plugins', ${JSON.stringify(firstPartyPlugins)}],
  plugins: { 'api-key': { keys: { 'key-abc123': 'partner-42', 'key-def456': 'partner-77' } } },
  apiScopes: [{ name: 'partner.read' }],
  apiResources: [{ name: 'partner-api', scopes: ['partner.read'] }],
  clients: [
    {
      clientId: 'partner',
      clientSecrets: [{ value: ${JSON.stringify(hashSecret('partner-secret'))} }],
      allowedGrantTypes: ['urn:example:api-key'],
      allowedScopes: ['partner.read'],
    },
  ],
});
`,
  );
  child = spawn(process.execPath, [cli, 'start', '--config', configFile], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  url = await listening(child);
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const asPartner = (params: Record<string, string>) =>
  postForm(`${url}/connect/token`, { grant_type: 'urn:example:api-key', ...params }, { authorization: basic('partner', 'partner-secret') });

describe('a dropped-in TypeScript grant plugin, served by `svc start`', () => {
  it('loads from the plugin dir with no build step', () => {
    expect(output).toContain('"plugin":"api-key"');
    expect(readdirSync(join(dir, 'plugins', 'api-key')).sort()).toEqual(['api-key-grant.ts', 'index.ts']);
  });

  it('swaps an API key for a token whose subject comes from the plugin options', async () => {
    const res = await asPartner({ api_key: 'key-abc123', scope: 'partner.read' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'partner.read', key_subject: 'partner-42',
    });
    const { issuer, jwks_uri } = (await (await fetch(`${url}/.well-known/openid-configuration`)).json()) as { issuer: string; jwks_uri: string };
    const { payload } = await jwtVerify(res.body.access_token as string, createRemoteJWKSet(new URL(jwks_uri)), {
      issuer, audience: 'partner-api', typ: 'at+jwt',
    });
    expect(payload).toMatchObject({ sub: 'partner-42', client_id: 'partner', scope: 'partner.read', aud: 'partner-api', auth_method: 'api_key' });
  });

  it('tells keys apart', async () => {
    const res = await asPartner({ api_key: 'key-def456', scope: 'partner.read' });
    expect(res.status).toBe(200);
    expect(res.body.key_subject).toBe('partner-77');
  });

  it('answers invalid_grant for an unknown key and invalid_request for a missing one', async () => {
    const unknown = await asPartner({ api_key: 'key-000000', scope: 'partner.read' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: 'invalid_grant', error_description: 'The API key is not valid.' });
    const missing = await asPartner({ scope: 'partner.read' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'The api_key parameter is missing.' });
  });

  it('is advertised in discovery', async () => {
    const doc = (await (await fetch(`${url}/.well-known/openid-configuration`)).json()) as { grant_types_supported?: string[] };
    expect(doc.grant_types_supported).toContain('urn:example:api-key');
  });
});

describe('`svc plugins`', () => {
  it('lists the dropped-in plugin with its grant type, and the shared-secret plugin with its auth methods', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'plugins', '--config', configFile], { cwd: dir });
    const blocks = stdout.split(/\n(?=\S)/);
    const apiKey = blocks.find((b) => b.startsWith('api-key '));
    expect(apiKey).toBeDefined();
    expect(apiKey).toContain(`(${join(dir, 'plugins', 'api-key')})`);
    expect(apiKey).toMatch(/grant types:\s+urn:example:api-key\n?$/);
    const sharedSecret = blocks.find((b) => b.startsWith('shared-secret '));
    expect(sharedSecret).toMatch(/authentication methods:\s+.*client_secret_basic/);
    expect(sharedSecret).toMatch(/authentication methods:\s+.*client_secret_post/);
    const builtIn = blocks.find((b) => b.startsWith('standard-grants '));
    expect(builtIn).toMatch(/grant types:\s+client_credentials, password, refresh_token/);
  });
});
