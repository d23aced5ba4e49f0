/**
 * `svc create-client-key` and `svc client-assertion` as a user runs them: the first keeps the
 * private key in the file the user names (owner-only, never overwritten) and prints a secret
 * definition; pasted into a client's `clientSecrets`, it lets an assertion made by the second
 * get a token from the running service.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SecretConfig } from '../../src/config/schema.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { runCli, type CliRun } from '../support/svc-process.js';

const svc = runCli;

let dir: string;
let keyFile: string;
let created: CliRun;
let server: TestServer | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-client-key-'));
  keyFile = join(dir, 'billing.pem');
  created = await svc('create-client-key', '--client', 'billing', '--out', keyFile, '--alg', 'ES256', '--days', '30');
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The JSON object printed after "add to clients[].clientSecrets of ...". */
function printedSecret(stdout: string): SecretConfig {
  const start = stdout.indexOf('{');
  expect(start, stdout).toBeGreaterThan(0);
  return JSON.parse(stdout.slice(start)) as SecretConfig;
}

describe('svc create-client-key', () => {
  it('writes the private key to the named file, readable by its owner only, and prints where', () => {
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`private key written to ${keyFile}`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });

  it("writes the key's self-signed certificate beside it: the same certificate as the printed secret", () => {
    const certFile = join(dir, 'billing.crt');
    expect(created.stdout).toContain(`certificate written to ${certFile}`);
    expect(created.stdout).toContain(`svc clients secret add billing --certificate ${certFile}`);
    const certificate = new X509Certificate(readFileSync(certFile));
    expect(certificate.subject).toBe('CN=billing');
    expect(certificate.raw.toString('base64')).toBe(printedSecret(created.stdout).value);
  });

  it('prints a certificate secret definition for the client, expiring with the certificate', () => {
    expect(created.stdout).toContain('add to clients[].clientSecrets of "billing":');
    const secret = printedSecret(created.stdout);
    expect(secret).toEqual({
      type: 'X509CertificateBase64',
      value: expect.stringMatching(/^[A-Za-z0-9+/]+={0,2}$/),
      description: expect.stringContaining('ES256 key of billing'),
      expiration: expect.any(String),
    });
    const days = (Date.parse(secret.expiration!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(created.stdout).not.toContain('PRIVATE KEY');
  });

  it('refuses to overwrite an existing key file', async () => {
    const before = readFileSync(keyFile, 'utf8');
    const again = await svc('create-client-key', '--client', 'billing', '--out', keyFile);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('the file exists (not overwriting a key)');
    expect(readFileSync(keyFile, 'utf8')).toBe(before);
  });

  it('makes a key whose pasted secret definition authenticates an assertion from svc client-assertion', async () => {
    server = await startServer({
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [{ clientId: 'billing', clientSecrets: [printedSecret(created.stdout)], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],
    });
    const made = await svc('client-assertion', '--client', 'billing', '--key', keyFile, '--aud', server.url);
    expect(made.code, made.stderr).toBe(0);
    const assertion = made.stdout.trim();
    const reply = await postForm(`${server.url}/connect/token`, {
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toMatchObject({ token_type: 'Bearer', scope: 'api1.read' });
  });
});
