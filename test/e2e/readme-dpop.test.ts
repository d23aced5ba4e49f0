/**
 * The README's DPoP commands, run verbatim with bash, openssl and curl against the sample
 * config. Only the base URL is swapped for the test server's, and `npx svc` for this checkout's
 * compiled CLI (test/support/compiled-service.ts), run from a temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { Browser, signInAndAuthorize } from '../support/sign-in.js';
import { docSection, runReadmeScript, sampleConfig, shellBlocks } from '../support/readme.js';

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
beforeAll(async () => {
  server = await startServer(await sampleConfig());
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const guide = 'docs/guides/sender-constrained-tokens.md';

describe('docs/guides/sender-constrained-tokens.md "Sender-constrained tokens: DPoP"', () => {
  it('works verbatim against the sample config', async () => {
    const stdout = await runReadmeScript(shellBlocks(docSection(guide, '## Sender-constrained tokens: DPoP', '## Mutual TLS'))[0]!, { url: server.url, cwd: dir });
    // curl -s prints no newline after a body: the answers follow each other on one line.
    const userinfoAt = stdout.indexOf('{"sub"');
    const bearerAt = stdout.indexOf('HTTP/1.1 ');
    const [tokenJson, userinfoJson, reply] = [stdout.slice(0, userinfoAt), stdout.slice(userinfoAt, bearerAt), stdout.slice(bearerAt)];
    const token = JSON.parse(tokenJson) as Record<string, unknown>;
    expect(token).toMatchObject({ token_type: 'DPoP', scope: 'api1.read' });
    expect(decodeJwt(token.access_token as string).cnf).toEqual({ jkt: expect.stringMatching(/^[\w-]{43}$/) });
    expect(JSON.parse(userinfoJson)).toEqual({ sub: expect.any(String) });
    expect(reply).toMatch(/^HTTP\/1\.1 401 /);
    expect(reply).toMatch(/^www-authenticate: DPoP error="invalid_token", /im);
  });

  it('binds a pushed request to the key: its code is redeemed only with a proof of dpop.pem', async () => {
    const [, par] = shellBlocks(docSection(guide, '## Sender-constrained tokens: DPoP', '## Mutual TLS'));
    // The first block made dpop.pem in the same folder.
    const pushed = JSON.parse(await runReadmeScript(par!, { url: server.url, cwd: dir })) as { request_uri: string; expires_in: number };
    expect(pushed).toEqual({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:[\w-]{43}$/), expires_in: 60 });
    const callback = await signInAndAuthorize(server, new Browser(server.url), { client_id: 'webapp', request_uri: pushed.request_uri }, { username: 'alice', password: 'alice-password' });
    const tokenUrl = `${server.url}/connect/token`;
    // The verifier the README names for its challenge.
    const redeem = { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: 'http://localhost:8080/callback', code_verifier: 'dBjftJeZ4CVP-mJ0kW7ZzqY4XeDQ7tWQ0tXPOEwJZGg' };
    const webapp = { authorization: basic('webapp', 'webapp-secret') };
    expect(await postForm(tokenUrl, redeem, webapp)).toMatchObject({
      status: 400, body: { error: 'invalid_grant', error_description: 'The authorization code is bound to a DPoP key: redeem it with a DPoP proof made with that key.' },
    });
    const proof = (await runReadmeScript('npx svc dpop-proof --key dpop.pem --htu "$SVC/connect/token"', { url: server.url, cwd: dir })).trim();
    const tokens = await postForm(tokenUrl, redeem, { ...webapp, DPoP: proof });
    expect(tokens).toMatchObject({ status: 200, body: { token_type: 'DPoP' } });
  });
});
