/**
 * OpenID Connect Back-Channel Logout 1.0 over HTTP: a user signs in to two clients through the
 * sign-in page, then logs out at /connect/endsession; each client registered a back-channel
 * logout URI on a real server of the test's own and receives a logout token it verifies with the
 * service's published keys (§2.6), naming the user and the `sid` of the ID token it got.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { hashSecret } from '../../src/sdk/hash.js';
import { startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, Browser, formsOf, redeemWeb, signInAndAuthorize, signInClients, signInConfig, spaRedirect, webRequest } from '../support/sign-in.js';

let server: TestServer;
let rp: Server;
let rpUrl: string;
const received: Array<{ path: string; token: string }> = [];
let arrived: () => void = () => undefined;

beforeAll(async () => {
  rp = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ path: req.url!, token: new URLSearchParams(body).get('logout_token') ?? '' });
      res.writeHead(200).end();
      arrived();
    });
  });
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  rpUrl = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
  const [web] = signInClients;
  server = await startServer(await signInConfig({
    // The test's relying party listens on loopback, which the address rules refuse unless allowed.
    backchannelLogout: { allowedAddresses: ['127.0.0.1'] },
    clients: [
      { ...web!, backchannelLogoutUri: `${rpUrl}/web/backchannel` },
      {
        ...web!, clientId: 'shop', clientSecrets: [{ value: hashSecret('shop-secret') }], allowedScopes: ['openid'],
        backchannelLogoutUri: `${rpUrl}/shop/backchannel?tenant=1`, allowedIdentityTokenSigningAlgorithms: [],
      },
      ...signInClients.slice(1),
    ],
  }));
});
afterAll(async () => {
  await server?.close();
  await new Promise<void>((resolve) => rp.close(() => resolve()));
});

/** Resolves once `count` logout tokens have arrived (the service posts them in the background). */
const logoutTokens = (count: number) => new Promise<void>((resolve) => {
  arrived = () => {
    if (received.length >= count) resolve();
  };
  arrived();
});

describe('back-channel logout', () => {
  it('is announced in discovery', async () => {
    const doc = await (await fetch(`${server.url}/.well-known/openid-configuration`)).json() as Record<string, unknown>;
    expect(doc).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
  });

  it("tells every client of the session, each with a logout token for its user and the ID token's sid", async () => {
    const browser = new Browser(server.url);
    const first = webRequest();
    const idToken = (await redeemWeb(server, (await signInAndAuthorize(server, browser, first.params)).searchParams.get('code')!, first.verifier)).body.id_token as string;
    // Single sign-on: the second client gets its code from the same session.
    const second = webRequest({ scope: 'openid' }, 'shop');
    expect((await signInAndAuthorize(server, browser, second.params)).searchParams.get('code')).toBeTruthy();

    const res = await browser.get(`/connect/endsession?${new URLSearchParams({ id_token_hint: idToken })}`);
    expect(res.status).toBe(200);
    await logoutTokens(2);

    const { sid, sub } = decodeJwt(idToken);
    const keys = createRemoteJWKSet(new URL(`${server.url}/.well-known/openid-configuration/jwks`));
    expect(received.map((r) => r.path).sort()).toEqual(['/shop/backchannel?tenant=1', '/web/backchannel']);
    for (const { path, token } of received) {
      const { payload, protectedHeader } = await jwtVerify(token, keys, { issuer: server.url, audience: path.startsWith('/web') ? 'web' : 'shop', typ: 'logout+jwt' });
      expect(protectedHeader.alg).toBe('RS256');
      expect(payload).toMatchObject({ sub, sid, events: { 'http://schemas.openid.net/event/backchannel-logout': {} } });
      expect(payload).not.toHaveProperty('nonce');
    }
    expect(server.logText()).toContain('"type":"logout.notified"');
    for (const { token } of received) expect(server.logText()).not.toContain(token.split('.')[2]);
  });

  it('tells the clients when "Not you? Sign out" on a consent page ends the session', async () => {
    received.length = 0;
    const browser = new Browser(server.url);
    const first = webRequest();
    const code = (await signInAndAuthorize(server, browser, first.params)).searchParams.get('code')!;
    const { sid } = decodeJwt((await redeemWeb(server, code, first.verifier)).body.id_token as string);
    // The same session at a client that asks for consent; the person there is not the one signed in.
    const consent = await browser.get(authorizeUrl(server, webRequest({}, 'spa', spaRedirect).params));
    expect(consent.html).toContain('<h1>Allow access?</h1>');
    const index = formsOf(consent.html).findIndex((f) => f.fields.step === 'sign-out');
    expect((await browser.submit(consent, {}, index)).html).toContain('<h1>Sign in</h1>');
    await logoutTokens(1);
    expect(received.map((r) => r.path)).toEqual(['/web/backchannel']);
    expect(decodeJwt(received[0]!.token)).toMatchObject({ aud: 'web', sid });
  });

  it('stops start-up for a back-channel URI with a fragment, naming the field', async () => {
    const [web] = signInClients;
    await expect(startServer(await signInConfig({ clients: [{ ...web!, backchannelLogoutUri: 'https://web.example.com/bc#x' }] })))
      .rejects.toThrow(/clients\[0\]\.backchannelLogoutUri: expected an absolute http\(s\) URL without a fragment/);
  });
});
