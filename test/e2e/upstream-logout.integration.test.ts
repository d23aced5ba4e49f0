/**
 * Issue 34: RP-initiated logout at the upstream provider (`logoutAtProvider`), with
 * node-oidc-provider as the upstream. Signing out of our service after a sign-in there sends the
 * browser to its `end_session_endpoint` with its ID token as `id_token_hint`; its own "sign out?"
 * page is confirmed; it sends the browser back to `/connect/endsession/callback`, and our logout
 * goes on to the client's `post_logout_redirect_uri` with its `state`. The upstream session is
 * gone (the next sign-in there asks for the login again). A provider without the setting, and a
 * password sign-in, sign out here only. And a device approved in a browser signed in upstream
 * gets the same `idp` and `amr` in its tokens (the device page reads the same session).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, formsOf, redeemWeb, signInClients, signInConfig, webRequest, type Page } from '../support/sign-in.js';
import { reservePort, startNodeOidcProvider, walkUpstream, type OidcUpstream } from '../support/upstream-providers.js';

const postLogout = 'https://web.example.com/signed-out';
const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';
const tv = { clientId: 'tv', clientName: 'Living room TV', requireClientSecret: false, allowedGrantTypes: [deviceGrant], allowedScopes: ['openid'] };
let server: TestServer;
let corp: OidcUpstream;

beforeAll(async () => {
  const corpPort = await reservePort();
  const corpIssuer = `http://127.0.0.1:${corpPort}`;
  server = await startServer(await signInConfig({
    clients: [...signInClients.map((c) => (c.clientId === 'web' ? { ...c, postLogoutRedirectUris: [postLogout] } : c)), tv],
    identityProviders: [
      { name: 'corp', displayName: 'Contoso', type: 'oidc', issuer: corpIssuer, clientId: 'svc', clientSecret: 'upstream-secret', logoutAtProvider: true },
      { name: 'corp-here', displayName: 'Contoso (here only)', type: 'oidc', issuer: corpIssuer, clientId: 'svc', clientSecret: 'upstream-secret' },
    ],
  }));
  corp = await startNodeOidcProvider(corpPort, `${server.url}/connect/authorize/callback`, { carol: { email: 'carol@example.com' } }, {
    postLogoutRedirectUri: `${server.url}/connect/endsession/callback`,
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await corp?.close();
});

async function codeFrom(browser: Browser, page: Page): Promise<string> {
  const p = page.html.includes('<h1>Allow access?</h1>') ? await browser.submit(page, { decision: 'approve' }) : page;
  const code = p.location?.searchParams.get('code');
  if (p.status !== 303 || !code) throw new Error(`expected the code at the client, got ${p.status}:\n${p.html}`);
  return code;
}

/** Signs in at `provider` and returns our ID token. */
async function signInAt(browser: Browser, provider: string): Promise<string> {
  const flow = webRequest();
  const ours = await browser.get(authorizeUrl(server, flow.params));
  const index = formsOf(ours.html).findIndex((f) => f.fields.step === 'upstream');
  const atUpstream = await browser.submit(ours, { provider }, index);
  expect(atUpstream.status).toBe(303);
  const back = await walkUpstream(browser, atUpstream.location!, corp.url, 'carol');
  const tokens = await redeemWeb(server, await codeFrom(browser, back), flow.verifier);
  expect(tokens.status).toBe(200);
  return tokens.body.id_token as string;
}

function logoutUrl(idToken: string): string {
  return `${server.url}/connect/endsession?${new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: postLogout, state: 'st-1' })}`;
}

describe('logout at the upstream provider', () => {
  it('goes by the provider\'s end_session_endpoint with its ID token, then on to the client with its state', async () => {
    const browser = new Browser(server.url);
    const idToken = await signInAt(browser, 'corp');
    expect(decodeJwt(idToken)).toMatchObject({ idp: 'corp', amr: ['external'] });

    const ours = await browser.get(logoutUrl(idToken));
    expect(ours.status).toBe(303);
    const atCorp = ours.location!;
    expect(atCorp.href.startsWith(`${corp.url}/`)).toBe(true);
    expect(atCorp.searchParams.get('post_logout_redirect_uri')).toBe(`${server.url}/connect/endsession/callback`);
    const hint = atCorp.searchParams.get('id_token_hint')!;
    expect(decodeJwt(hint)).toMatchObject({ iss: corp.url, sub: 'carol', aud: 'svc' });
    const state = atCorp.searchParams.get('state')!;

    const back = await walkUpstream(browser, atCorp, corp.url, 'carol', { confirmLogout: true });
    expect(back.status).toBe(303);
    expect(back.location!.href).toBe(`${postLogout}?state=st-1`);
    // The way back works once.
    const replay = await browser.get(`${server.url}/connect/endsession/callback?state=${state}`);
    expect(replay.status).toBe(200);
    expect(replay.html).toContain('signed out');
    expect(replay.location).toBeUndefined();

    // Signed out here, and there: the provider asks for the login again.
    expect((await browser.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params))).location?.searchParams.get('error')).toBe('login_required');
    const again = await browser.get(authorizeUrl(server, webRequest().params));
    const atUpstream = await browser.submit(again, { provider: 'corp' }, formsOf(again.html).findIndex((f) => f.fields.step === 'upstream'));
    let page = await browser.get(atUpstream.location!);
    while (page.location?.href.startsWith(corp.url)) page = await browser.get(page.location);
    expect(page.html).toMatch(/name="login"/);
  });

  it('the "sign out?" page lets its form lead to the provider (CSP form-action), and its approval goes there', async () => {
    const browser = new Browser(server.url);
    await signInAt(browser, 'corp');
    const ask = await browser.get(`${server.url}/connect/endsession?${new URLSearchParams({ client_id: 'web', post_logout_redirect_uri: postLogout })}`);
    expect(ask.status).toBe(200);
    expect(ask.headers.get('content-security-policy')).toMatch(new RegExp(`form-action 'self'[^;]* ${corp.url.replace(/[.]/g, '\\.')}[ ;]`));
    const approved = await browser.submit(ask, { decision: 'approve' });
    expect(approved.status).toBe(303);
    expect(approved.location!.href.startsWith(`${corp.url}/`)).toBe(true);
  });

  it('a provider without logoutAtProvider, and a password sign-in, sign out here only', async () => {
    const browser = new Browser(server.url);
    const idToken = await signInAt(browser, 'corp-here');
    const out = await browser.get(logoutUrl(idToken));
    expect(out.status).toBe(303);
    expect(out.location!.href).toBe(`${postLogout}?state=st-1`);

    const flow = webRequest();
    const page = await browser.get(authorizeUrl(server, flow.params));
    const signedIn = await browser.submit(page, { username: alice.username, password: alice.password }, formsOf(page.html).findIndex((f) => f.fields.step === 'sign-in'));
    const tokens = await redeemWeb(server, await codeFrom(browser, signedIn), flow.verifier);
    const plain = await browser.get(logoutUrl(tokens.body.id_token as string));
    expect(plain.location!.href).toBe(`${postLogout}?state=st-1`);
  });

  it('a device approved in a browser signed in upstream gets the same idp and amr', async () => {
    const browser = new Browser(server.url);
    await signInAt(browser, 'corp-here');
    const codes = (await postForm(`${server.url}/connect/deviceauthorization`, { client_id: 'tv', scope: 'openid' })).body as { device_code: string; verification_uri_complete: string };
    const entry = await browser.get(codes.verification_uri_complete);
    const userCode = /id="user_code" name="user_code" value="([^"]*)"/.exec(entry.html)![1]!;
    const consent = await browser.submit(entry, { user_code: userCode });
    expect(consent.html).toContain('<h1>Allow access?</h1>');
    expect((await browser.submit(consent, { decision: 'approve' })).status).toBe(200);
    const tokens = await postForm(`${server.url}/connect/token`, { grant_type: deviceGrant, device_code: codes.device_code, client_id: 'tv' });
    expect(decodeJwt((tokens.body as { id_token: string }).id_token)).toMatchObject({ idp: 'corp-here', amr: ['external'] });
  });
});
