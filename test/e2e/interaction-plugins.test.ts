/**
 * The interaction seam beyond the sign-in form: a plugin's own consent and logout confirmation
 * pages (the host keeps CSRF, the decisions and the session), and sign-in at an external
 * identity provider (a redirect out, the plugin's callback route back, the host binding the
 * answer to the browser and the pending request before it signs anyone in).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstPartyPlugins, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, formsOf, redeemWeb, signInAndAuthorize, signInConfig, spaRedirect, webRequest } from '../support/sign-in.js';

const fixtures = (name: string): string => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const idpUrl = 'https://idp.example/authorize';

describe('a plugin\'s consent and logout pages', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(await signInConfig({ pluginDirs: [firstPartyPlugins, fixtures('interaction-pages')] }));
  });
  afterAll(() => server?.close());

  it('consent: the plugin\'s page with the host\'s hidden fields; its approve button gets the code, deny access_denied', async () => {
    const { params } = webRequest({ scope: 'openid profile' }, 'spa', spaRedirect);
    const browser = new Browser(server.url);
    const signIn = await browser.get(authorizeUrl(server, params));
    expect(signIn.html).toContain('<h1>Sign in</h1>');
    const consent = await browser.submit(signIn, { username: alice.username, password: alice.password });
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('<h1>Example Corp: share with Demo SPA?</h1><p>Hello alice</p>');
    expect(consent.html).toContain('<li data-scope="openid">Know who you are (your user id)</li><li data-scope="profile">Your name</li>');
    expect(consent.headers.get('content-security-policy')).toContain("style-src 'sha256-");
    expect(consent.headers.get('content-security-policy')).toContain(' https://static.corp.example;');
    expect(consent.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(Object.keys(formsOf(consent.html)[0]!.fields)).toEqual(['step', 'interaction', 'csrf']);
    const approved = await browser.submit(consent, { decision: 'approve' });
    expect(approved.status).toBe(303);
    expect(approved.location!.searchParams.has('code')).toBe(true);

    const again = await browser.get(authorizeUrl(server, webRequest({ scope: 'openid profile', prompt: 'consent' }, 'spa', spaRedirect).params));
    const denied = await browser.submit(again, { decision: 'deny' });
    expect(denied.location!.searchParams.get('error')).toBe('access_denied');
  });

  it('logout: the plugin\'s confirmation page; its button signs out with the host\'s CSRF check', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params);
    const confirm = await browser.get('/connect/endsession?client_id=web&state=s1&post_logout_redirect_uri=https%3A%2F%2Fweb.example.com%2Fsigned-out');
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('<h1>Example Corp: leave?</h1>');
    const form = formsOf(confirm.html)[0]!;
    expect(Object.keys(form.fields)).toEqual(['csrf', 'post_logout_redirect_uri', 'state', 'client_id']);
    expect((await browser.post(form.action, { ...form.fields, csrf: 'forged', decision: 'approve' })).status).toBe(400);
    const done = await browser.submit(confirm, { decision: 'approve' });
    expect(done.status).toBe(303);
    expect(done.location!.href).toBe('https://web.example.com/signed-out?state=s1');
    const none = await browser.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params));
    expect(none.location!.searchParams.get('error')).toBe('login_required');
  });

  it('the sign-in page stays built in when the plugin gives no render', async () => {
    const page = await new Browser(server.url).get(authorizeUrl(server, webRequest().params));
    expect(page.html).toContain('<label for="username">Username</label>');
  });
});

describe('sign-in at an external identity provider', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(await signInConfig({
      pluginDirs: [firstPartyPlugins, fixtures('external-sign-in')],
      plugins: { 'upstream-idp': { idpUrl, tickets: { 'ticket-alice': alice.subjectId } } },
    }));
  });
  afterAll(() => server?.close());

  /** The provider's side: it signs the person in and sends the browser back with the state and a ticket. */
  const comeBack = (browser: Browser, out: URL, ticket: string) =>
    browser.get(`${out.searchParams.get('redirect_uri')}?${new URLSearchParams({ state: out.searchParams.get('state')!, ticket })}`);

  it('redirects out with state, login_hint and the callback URL; the callback signs in, and the code has the provider\'s subject', async () => {
    const browser = new Browser(server.url);
    const { params, verifier } = webRequest({ scope: 'openid', login_hint: 'alice@corp' });
    const out = await browser.get(authorizeUrl(server, params));
    expect(out.status).toBe(303);
    expect(`${out.location!.origin}${out.location!.pathname}`).toBe(idpUrl);
    expect(out.location!.searchParams.get('redirect_uri')).toBe(`${server.url}/connect/authorize/callback`);
    expect(out.location!.searchParams.get('login_hint')).toBe('alice@corp');
    expect(browser.cookies.has('svc_session')).toBe(true);

    const back = await comeBack(browser, out.location!, 'ticket-alice');
    expect(back.status).toBe(303);
    expect(back.location!.origin + back.location!.pathname).toBe('https://web.example.com/callback');
    const tokens = await redeemWeb(server, back.location!.searchParams.get('code')!, verifier);
    expect(tokens.status).toBe(200);
    expect(JSON.parse(Buffer.from((tokens.body.id_token as string).split('.')[1]!, 'base64url').toString()).sub).toBe(alice.subjectId);
    // Signed in: the next request needs no trip to the provider.
    const none = await browser.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params));
    expect(none.location!.searchParams.has('code')).toBe(true);
    expect(server.logText()).toContain('"via":"external"');
  });

  it('an answer carried into another browser signs nobody in (login CSRF)', async () => {
    const victim = new Browser(server.url);
    const out = await new Browser(server.url).get(authorizeUrl(server, webRequest().params));
    await victim.get(authorizeUrl(server, webRequest().params));
    const back = await comeBack(victim, out.location!, 'ticket-alice');
    expect(back.status).toBe(400);
    expect(back.html).toContain('<h1>Please start again</h1>');
    const none = await victim.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params));
    expect(none.location!.searchParams.get('error')).toBe('login_required');
  });

  it('a refusal from the provider is a plain page, and the pending request is spent', async () => {
    const browser = new Browser(server.url);
    const out = await browser.get(authorizeUrl(server, webRequest().params));
    const back = await comeBack(browser, out.location!, 'unknown-ticket');
    expect(back.status).toBe(400);
    expect(back.html).toContain('<h1>Sign-in failed</h1>');
    expect((await comeBack(browser, out.location!, 'ticket-alice')).html).toContain('<h1>Please start again</h1>');
  });

  it('the callback route exists only with such a plugin', async () => {
    const plain = await startServer(await signInConfig());
    try {
      const res = await fetch(`${plain.url}/connect/authorize/callback?state=x`);
      expect(res.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
