/**
 * A client from the database (`svc clients`), its FederatedCredential added with
 * `svc clients secret add --type FederatedCredential --value ...`, authenticates with a GitHub
 * Actions token at a node reading that database.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { postForm, startServer, type TestServer } from '../../support/server.js';
import { testKeyFiles } from '../../support/test-keys.js';
import { startWorkloadIssuer, type WorkloadIssuer } from '../../support/workload-issuer.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const AUDIENCE = 'https://svc.federation.test';

let dir: string;
let configFile: string;
let issuer: WorkloadIssuer;
let server: TestServer | undefined;
let config: Record<string, unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-federated-store-'));
  issuer = await startWorkloadIssuer();
  config = {
    store: 'sqlite:./data/svc.db',
    signing: { keys: testKeyFiles(dir) },
    apiScopes: [{ name: 'api' }],
    apiResources: [{ name: 'api', scopes: ['api'] }],
    plugins: { 'workload-identity': { allowLoopback: true, issuers: [{ issuer: issuer.issuer('github'), audience: AUDIENCE, tlsCa: issuer.caPem }] } },
  };
  configFile = join(dir, 'svc.config.json');
  writeFileSync(configFile, JSON.stringify(config));
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function svc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await main([...args, '--config', configFile]), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

describe('a FederatedCredential in the client store', () => {
  it('is added with svc clients secret add --type --value, and authenticates the client', async () => {
    expect((await svc('clients', 'add', 'deployer', '--grant', 'client_credentials', '--scope', 'api')).code).toBe(0);
    const value = JSON.stringify({ issuer: issuer.issuer('github'), subject: 'repo:acme/app:environment:production', claims: { repository_owner: 'acme' } });
    const added = await svc('clients', 'secret', 'add', 'deployer', '--type', 'FederatedCredential', '--value', value, '--description', 'deploy workflow');
    expect(added).toEqual({ code: 0, stdout: expect.stringMatching(/^FederatedCredential secret [0-9a-f]{8} of "deployer" added \(expires never\)\.\n$/), stderr: '' });
    expect(await svc('clients', 'secret', 'add', 'deployer', '--type', 'Federatedcredential', '--value', value)).toMatchObject({ code: 1, stderr: expect.stringContaining('Federatedcredential') });
    expect(await svc('clients', 'secret', 'add', 'deployer', '--type', 'SharedSecret', '--value', 'hunter2')).toMatchObject({ code: 1, stderr: 'svc: a SharedSecret is generated, never given: leave out --type and --value.\n' });

    server = await startServer(config, { configDir: dir });
    const reply = await postForm(`${server.url}/connect/token`, {
      grant_type: 'client_credentials', client_id: 'deployer', client_assertion_type: JWT_BEARER, client_assertion: issuer.mint('github', AUDIENCE),
    });
    expect(reply.status).toBe(200);
    const other = await postForm(`${server.url}/connect/token`, {
      grant_type: 'client_credentials', client_id: 'deployer', client_assertion_type: JWT_BEARER,
      client_assertion: issuer.mint('github', AUDIENCE, { claims: { sub: 'repo:acme/app:pull_request' } }),
    });
    expect(other.status).toBe(401);
  });
});
