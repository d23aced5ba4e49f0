/**
 * The seam for a deployment's own sign-in page: a plugin's `signInPage` replaces the built-in
 * page (its look, a second factor) while the host keeps the flow, the CSRF token, the session,
 * consent and the code. Two such plugins stop start-up.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BootError } from '../../src/config/boot-error.js';
import { firstPartyPlugins, startServer, type TestServer } from '../support/server.js';
import { decodeJwt } from 'jose';
import { alice, authorizeUrl, Browser, formsOf, redeemWeb, signInConfig, webRequest } from '../support/sign-in.js';

const fixtures = fileURLToPath(new URL('../fixtures/sign-in-page', import.meta.url));
let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig({
    pluginDirs: [firstPartyPlugins, fixtures],
    plugins: { 'second-factor-page': { oneTimeCode: '424242' } },
  }));
});
afterAll(() => server?.close());

describe('a plugin sign-in page', () => {
  it('renders its own page with the host\'s hidden fields, and signs in only with its second factor', async () => {
    const browser = new Browser(server.url);
    const page = await browser.get(authorizeUrl(server, webRequest().params));
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Example Corp</h1><p>Sign in to Demo web app</p>');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(Object.keys(formsOf(page.html)[0]!.fields)).toEqual(['step', 'interaction', 'csrf']);

    const wrong = await browser.submit(page, { username: alice.username, password: alice.password, otp: '000000' });
    expect(wrong.status).toBe(200);
    expect(wrong.html).toContain('<p role="alert">Wrong one-time code.</p>');
    const right = await browser.submit(wrong, { username: alice.username, password: alice.password, otp: '424242' });
    expect(right.status).toBe(303);
    expect(right.location!.searchParams.has('code')).toBe(true);
  });

  it('says how it signed the person in (amr): the ID token carries it, and acr mfa', async () => {
    const browser = new Browser(server.url);
    const flow = webRequest();
    const page = await browser.get(authorizeUrl(server, flow.params));
    const done = await browser.submit(page, { username: alice.username, password: alice.password, otp: '424242' });
    const tokens = await redeemWeb(server, done.location!.searchParams.get('code')!, flow.verifier);
    expect(decodeJwt((tokens.body as { id_token: string }).id_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'mfa' });
  });

  it('two plugins providing a sign-in page stop start-up', async () => {
    const err = await startServer(await signInConfig({ pluginDirs: [firstPartyPlugins, fixtures, fixtures] })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BootError);
    expect((err as BootError).message).toContain('plugins "second-factor-page" and "second-factor-page" both provide the signInPage (remove one)');
  });
});
