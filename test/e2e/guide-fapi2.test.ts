/**
 * docs/guides/fapi2.md: "Try it" run verbatim with bash, openssl, the CLI and curl against the
 * sample config with the guide's `bank-app` client under `fapi2: 'message-signing'` (the demo
 * certificate of `pkjwt-demo`), from a temporary folder holding the demo key where the guide
 * names it. Then what the guide says follows: the sign-in, the JARM response, the code redeemed
 * with a proof of the guide's key (and refused without one), and the start-up refusal it quotes.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { ClientConfig } from '../../src/config/schema.js';
import { postForm, repoRoot, startServer, type TestServer } from '../support/server.js';
import { Browser, signInAndAuthorize } from '../support/sign-in.js';
import { docSection, runReadmeScript, sampleConfig, shellBlocks } from '../support/readme.js';

const guide = 'docs/guides/fapi2.md';
const redirectUri = 'https://bank-app.example.com/callback';
const dir = mkdtempSync(join(tmpdir(), 'svc-fapi2-guide-'));
let server: TestServer;

beforeAll(async () => {
  mkdirSync(join(dir, 'docs/demo-keys'), { recursive: true });
  copyFileSync(join(repoRoot, 'docs/demo-keys/pkjwt-demo.pem'), join(dir, 'docs/demo-keys/pkjwt-demo.pem'));
  const sample = await sampleConfig();
  const demoCertificate = sample.clients!.find((c) => c.clientId === 'pkjwt-demo')!.clientSecrets![0]!;
  // The guide's client, as its config block shows it.
  const bankApp: ClientConfig = {
    clientId: 'bank-app', clientName: 'Bank app', fapi2: 'message-signing',
    clientSecrets: [{ type: 'X509CertificateBase64', value: demoCertificate.value }],
    tokenEndpointAuthMethods: ['private_key_jwt'], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile'],
    redirectUris: [redirectUri], authorizationCodeLifetime: 60, allowedIdentityTokenSigningAlgorithms: ['ES256'], authorizationSignedResponseAlg: 'ES256',
  };
  server = await startServer({ ...sample, signing: { ...sample.signing, idTokenAlgorithms: ['RS256', 'ES256'] }, clients: [...sample.clients!, bankApp] });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (script: string): Promise<string> => runReadmeScript(script, { url: server.url, cwd: dir });

describe('docs/guides/fapi2.md', () => {
  it('shows the client the test runs', () => {
    const config = docSection(guide, '## Turn it on', '## Try it');
    for (const line of ["fapi2: 'message-signing'", "clientId: 'bank-app'", "value: 'MIIBRzCB7qADAgECAhAZrNHjqcCuj1+q", "tokenEndpointAuthMethods: ['private_key_jwt']",
      'authorizationCodeLifetime: 60', "allowedIdentityTokenSigningAlgorithms: ['ES256']", "authorizationSignedResponseAlg: 'ES256'", "idTokenAlgorithms: ['RS256', 'ES256']"]) {
      expect(config).toContain(line);
    }
  });

  it('"Try it" works verbatim: PAR with a signed request object and a DPoP proof; the code then needs a proof of that key', async () => {
    const [script] = shellBlocks(docSection(guide, '## Try it', '## What the profile enforces'));
    const pushed = JSON.parse(await run(script!)) as { request_uri: string; expires_in: number };
    expect(pushed).toEqual({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:[\w-]{43}$/), expires_in: 60 });

    const callback = await signInAndAuthorize(server, new Browser(server.url), { client_id: 'bank-app', request_uri: pushed.request_uri }, { username: 'alice', password: 'alice-password' });
    expect([...callback.searchParams.keys()]).toEqual(['response']);
    const response = callback.searchParams.get('response')!;
    expect(decodeProtectedHeader(response).alg).toBe('ES256');
    const { payload } = await jwtVerify(response, createRemoteJWKSet(new URL(`${server.url}/.well-known/openid-configuration/jwks`)), { issuer: server.url, audience: 'bank-app' });

    const assertion = async (): Promise<string> => (await run('npx svc client-assertion --client bank-app --key docs/demo-keys/pkjwt-demo.pem --aud "$SVC"')).trim();
    const redeem = async (headers: Record<string, string>) => postForm(`${server.url}/connect/token`, {
      grant_type: 'authorization_code', code: payload.code as string, redirect_uri: redirectUri, code_verifier: 'dBjftJeZ4CVP-mJ0kW7ZzqY4XeDQ7tWQ0tXPOEwJZGg',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: await assertion(),
    }, headers);
    // The code is bound to dpop.pem: without a proof it is refused (and stays unspent).
    expect((await redeem({})).status).toBe(400);
    const proof = (await run('npx svc dpop-proof --key dpop.pem --htu "$SVC/connect/token"')).trim();
    expect(await redeem({ DPoP: proof })).toMatchObject({ status: 200, body: { token_type: 'DPoP', id_token: expect.any(String) } });
  });

  it('quotes the start-up refusal the service prints', async () => {
    const quoted = docSection(guide, '## Turn it on', '## Try it');
    const refused = await startServer({
      fapi2: 'security', identityResources: [{ name: 'openid', claims: ['sub'] }],
      clients: [0, 1, 2, 3].map((i) => (i < 3 ? { clientId: `ok-${i}`, fapi2: 'off' as const, clientSecrets: [{ value: 'K7gNU3sdo+OL0wNhqoVWhr3g6s1xYv72ol/pe/Unols=' }], allowedGrantTypes: ['client_credentials'], allowedScopes: [] } : {
        clientId: 'legacy-bank', clientSecrets: [{ type: 'X509CertificateBase64', value: 'MIIB' }], tokenEndpointAuthMethods: ['private_key_jwt'],
        allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['http://legacy-bank.example.com/cb'],
        allowedIdentityTokenSigningAlgorithms: ['ES256'], authorizationSignedResponseAlg: 'ES256',
      })),
      signing: { idTokenAlgorithms: ['RS256', 'ES256'] },
    }).then(() => undefined, (err: unknown) => (err as Error).message);
    const lines = (refused ?? '').split('\n').map((l) => l.trim().replace(/^- /, ''));
    const quotedLines = quoted.split('\n').filter((l) => l.startsWith('clients[3].'));
    expect(quotedLines).toHaveLength(2);
    for (const line of quotedLines) expect(lines).toContain(line);
  });
});
