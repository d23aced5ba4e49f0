/**
 * The sign-in flow on SQLite across a restart: the session, a pending sign-in and an unredeemed
 * code all live in the store, so a restarted service carries on where the old one stopped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, postForm, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, signInConfig, webRedirect, webRequest } from '../support/sign-in.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-sign-in-restart-'));
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sign-in on SQLite across a restart', () => {
  it('keeps the session, the pending sign-in and the code', async () => {
    const port = await freePort();
    const config = await signInConfig({ store: `sqlite:${join(dir, 'svc.db')}`, issuer: `http://127.0.0.1:${port}`, deviceFlow: { cookieSecret: 'x'.repeat(32) } });
    server = await startServer({ ...config, port });
    const browser = new Browser(server.url);
    const { params, verifier } = webRequest();
    const done = await browser.submit(await browser.get(authorizeUrl(server, params)), { username: alice.username, password: alice.password });
    const code = done.location!.searchParams.get('code')!;
    const pending = await browser.get(authorizeUrl(server, webRequest({ prompt: 'login' }).params));
    await server.close();

    // The same issuer on a new port: no pooled connection of the old process is reused.
    server = await startServer(config);
    const after = new Browser(server.url);
    for (const [name, value] of browser.cookies) after.cookies.set(name, value);
    const silent = await after.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params));
    expect(silent.location!.searchParams.has('code')).toBe(true);
    const resumed = await after.submit(pending, { username: alice.username, password: alice.password });
    expect(resumed.status).toBe(303);
    const tokens = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code, redirect_uri: webRedirect, code_verifier: verifier }, {
      authorization: `Basic ${Buffer.from('web:web-secret').toString('base64')}`,
    });
    expect(tokens.status).toBe(200);
  });
});
