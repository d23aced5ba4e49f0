/**
 * Python's authlib (Debian's python3-authlib) authenticates with private_key_jwt as people use
 * it. As it ships, authlib puts the token endpoint URL in `aud`: refused under the default strict
 * audience (RFC 10070), accepted for a client moved to compat by its own property. Given the
 * issuer identifier as PrivateKeyJWT's first argument, authlib passes strict. The metrics count
 * which audience form each client sent.
 */
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

const PYTHON = '/usr/bin/python3';
const script = fileURLToPath(new URL('./clients/authlib_private_key_jwt.py', import.meta.url));
const authlibMissing = spawnSync(PYTHON, ['-c', 'import authlib, requests'], { stdio: 'ignore' }).status !== 0;
if (authlibMissing && process.env.CI !== 'true') {
  console.warn(`skipping the authlib tests: ${PYTHON} with python3-authlib and python3-requests is missing (apt-get install python3-authlib)`);
}

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const jwkSecret = { type: 'JsonWebKey', value: JSON.stringify(publicKey.export({ format: 'jwk' })) };

interface AuthlibAnswer {
  access_token?: string;
  error?: string;
  error_description?: string;
}

/** Runs authlib's client_credentials request; `audience` is PrivateKeyJWT's first argument, if any. */
function authlib(server: TestServer, clientId: string, audience?: string): Promise<AuthlibAnswer> {
  const request = { token_url: `${server.url}/connect/token`, client_id: clientId, private_key: privateKeyPem, audience };
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.stderr.on('data', (chunk) => (err += String(chunk)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as AuthlibAnswer) : reject(new Error(`authlib exited ${code}: ${err}`))));
    child.stdin.end(JSON.stringify(request));
  });
}

function counted(text: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`svc_client_assertion_audience_total{${labels}} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

describe.skipIf(authlibMissing && process.env.CI !== 'true')('private_key_jwt from Python authlib', () => {
  let server: TestServer;
  beforeAll(async () => {
    const client = (clientId: string, properties: Record<string, string> = {}) => ({
      clientId,
      clientSecrets: [jwkSecret],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
      properties,
    });
    server = await startServer({
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [client('py-strict'), client('py-compat', { 'privateKeyJwt.audience': 'compat' })],
      metrics: { enabled: true },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('as it ships (aud = token endpoint) is refused under the default strict audience', async () => {
    expect(await authlib(server, 'py-strict')).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
  });

  it('with the issuer identifier as PrivateKeyJWT\'s first argument gets a token under strict', async () => {
    const answer = await authlib(server, 'py-strict', server.url);
    expect(answer.error).toBeUndefined();
    expect(answer.access_token).toEqual(expect.any(String));
  });

  it('as it ships gets a token for a client whose privateKeyJwt.audience property is compat', async () => {
    const answer = await authlib(server, 'py-compat');
    expect(answer.error).toBeUndefined();
    expect(answer.access_token).toEqual(expect.any(String));
  });

  it('counts each client\'s audience form in the metrics', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(counted(text, 'client_id="py-strict",audience="token_endpoint",outcome="rejected"')).toBe(1);
    expect(counted(text, 'client_id="py-strict",audience="issuer",outcome="accepted"')).toBe(1);
    expect(counted(text, 'client_id="py-compat",audience="token_endpoint",outcome="accepted"')).toBe(1);
  });
});
