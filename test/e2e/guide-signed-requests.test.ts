/**
 * docs/guides/signed-requests.md, "Try it", run verbatim with bash, the CLI and curl against the
 * sample config with the guide's `bank-app` client (the demo certificate of `pkjwt-demo`): the
 * pushed signed request object, then the sign-in and the JARM response the guide describes,
 * verified with the service's JWKS, and the code redeemed with the guide's PKCE verifier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { ClientConfig } from '../../src/config/schema.js';
import { postForm, repoRoot, startServer, type TestServer } from '../support/server.js';
import { Browser, signInAndAuthorize } from '../support/sign-in.js';
import { docSection, runReadmeScript, sampleConfig, shellBlocks } from '../support/readme.js';

const guide = 'docs/guides/signed-requests.md';
const redirectUri = 'https://bank-app.example.com/callback';
let server: TestServer;

beforeAll(async () => {
  const sample = await sampleConfig();
  const demoCertificate = sample.clients!.find((c) => c.clientId === 'pkjwt-demo')!.clientSecrets![0]!;
  // The guide's client, as its config block shows it.
  const bankApp: ClientConfig = {
    clientId: 'bank-app', clientName: 'Bank app', clientSecrets: [{ type: 'X509CertificateBase64', value: demoCertificate.value }],
    tokenEndpointAuthMethods: ['private_key_jwt'], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'],
    redirectUris: [redirectUri], requirePushedAuthorization: true, requireRequestObject: true, authorizationSignedResponseAlg: 'ES256',
  };
  server = await startServer({ ...sample, clients: [...sample.clients!, bankApp] });
});
afterAll(() => server?.close());

describe('docs/guides/signed-requests.md', () => {
  it('shows the client the test runs: the demo certificate, requireRequestObject, the JARM algorithm', () => {
    const config = docSection(guide, '## Configure a client', '## Try it');
    for (const line of ["clientId: 'bank-app'", "type: 'X509CertificateBase64', value: 'MIIBRzCB7qADAgECAhAZrNHjqcCuj1+q", 'requireRequestObject: true', "authorizationSignedResponseAlg: 'ES256'", 'requirePushedAuthorization: true']) {
      expect(config).toContain(line);
    }
  });

  it('"Try it" works verbatim: PAR with a signed request object, then a JARM response with the code', async () => {
    const [script] = shellBlocks(docSection(guide, '## Try it', '## What is checked'));
    const pushed = JSON.parse(await runReadmeScript(script!, { url: server.url, cwd: repoRoot })) as { request_uri: string; expires_in: number };
    expect(pushed).toEqual({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:[\w-]{43}$/), expires_in: 60 });

    const callback = await signInAndAuthorize(server, new Browser(server.url), { client_id: 'bank-app', request_uri: pushed.request_uri }, { username: 'alice', password: 'alice-password' });
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    expect([...callback.searchParams.keys()]).toEqual(['response']);
    const response = callback.searchParams.get('response')!;
    expect(decodeProtectedHeader(response).alg).toBe('ES256');
    const { payload } = await jwtVerify(response, createRemoteJWKSet(new URL(`${server.url}/.well-known/openid-configuration/jwks`)), { issuer: server.url, audience: 'bank-app' });
    expect(payload).toEqual({ code: expect.any(String), state: 'af0ifjsldkj', iss: server.url, aud: 'bank-app', iat: expect.any(Number), exp: (payload.iat as number) + 120 });

    const assertion = (await runReadmeScript('npx svc client-assertion --client bank-app --key docs/demo-keys/pkjwt-demo.pem --aud "$SVC"', { url: server.url, cwd: repoRoot })).trim();
    const tokens = await postForm(`${server.url}/connect/token`, {
      grant_type: 'authorization_code', code: payload.code as string, redirect_uri: redirectUri, code_verifier: 'dBjftJeZ4CVP-mJ0kW7ZzqY4XeDQ7tWQ0tXPOEwJZGg',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion,
    });
    expect(tokens).toMatchObject({ status: 200, body: { token_type: 'Bearer', id_token: expect.any(String) } });
  });
});
