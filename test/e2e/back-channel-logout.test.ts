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
import { eventually, logoutOutcomes, startLogoutReceiver, verifyLogoutToken } from '../support/logout-receiver.js';
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
      // Registered for back-channel logout, but never given a code in the sessions below.
      { ...web!, clientId: 'idle', clientSecrets: [{ value: hashSecret('idle-secret') }], backchannelLogoutUri: `${rpUrl}/idle/backchannel` },
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
    // Each client of the session has its outcome; the one that got no code in it is told nothing.
    await eventually('both outcomes', () => logoutOutcomes(server.logs).length === 2);
    expect(logoutOutcomes(server.logs).sort()).toEqual(['shop #1 delivered', 'web #1 delivered']);
    expect(received.map((r) => r.path)).not.toContain('/idle/backchannel');
    expect(await server.app.store.logoutDeliveries.count()).toBe(0);

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

  it('tries a client that is down at first again, with back-off, until it answers', async () => {
    const receiver = await startLogoutReceiver();
    const [web] = signInClients;
    // Short waits so the test need not wait minutes: the first retry after 1 s, looked for every second.
    const node = await startServer(await signInConfig({
      backchannelLogout: { allowedAddresses: ['127.0.0.1'], retryDelay: 1, pollInterval: 1 },
      clients: [{ ...web!, backchannelLogoutUri: `${receiver.url}/web/backchannel` }, ...signInClients.slice(1)],
    }));
    try {
      receiver.failNext(2);
      const browser = new Browser(node.url);
      const flow = webRequest();
      const idToken = (await redeemWeb(node, (await signInAndAuthorize(node, browser, flow.params)).searchParams.get('code')!, flow.verifier)).body.id_token as string;
      expect((await browser.get(`/connect/endsession?${new URLSearchParams({ id_token_hint: idToken })}`)).status).toBe(200);
      await eventually('the delivery', () => logoutOutcomes(node.logs).includes('web #3 delivered'));
      expect(logoutOutcomes(node.logs)).toEqual(['web #1 answered 503', 'web #2 answered 503', 'web #3 delivered']);
      // Every attempt carried a fresh, valid logout token for the session of the ID token.
      expect(receiver.received).toHaveLength(3);
      const { sid, sub } = decodeJwt(idToken);
      for (const { token } of receiver.received) expect(await verifyLogoutToken(token, node.url, 'web')).toMatchObject({ sid, sub });
      expect(new Set(receiver.received.map((r) => decodeJwt(r.token).jti)).size).toBe(3);
    } finally {
      await node.close();
      await receiver.close();
    }
  });

  it('posts nothing to a loopback client when the deployment did not allow loopback addresses', async () => {
    const receiver = await startLogoutReceiver();
    const [web] = signInClients;
    const node = await startServer(await signInConfig({ clients: [{ ...web!, backchannelLogoutUri: `${receiver.url}/web/backchannel` }, ...signInClients.slice(1)] }));
    try {
      const browser = new Browser(node.url);
      const flow = webRequest();
      const idToken = (await redeemWeb(node, (await signInAndAuthorize(node, browser, flow.params)).searchParams.get('code')!, flow.verifier)).body.id_token as string;
      expect((await browser.get(`/connect/endsession?${new URLSearchParams({ id_token_hint: idToken })}`)).status).toBe(200);
      await eventually('giving up', () => logoutOutcomes(node.logs).length === 2);
      const refused = 'its address may not be posted to (backchannelLogout.allowedAddresses)';
      expect(logoutOutcomes(node.logs)).toEqual([`web #1 ${refused}`, `web gave up after 1: ${refused}`]);
      expect(receiver.received).toEqual([]);
    } finally {
      await node.close();
      await receiver.close();
    }
  });

  it('stops start-up for a back-channel URI with a fragment, naming the field', async () => {
    const [web] = signInClients;
    await expect(startServer(await signInConfig({ clients: [{ ...web!, backchannelLogoutUri: 'https://web.example.com/bc#x' }] })))
      .rejects.toThrow(/clients\[0\]\.backchannelLogoutUri: expected an absolute http\(s\) URL without a fragment/);
  });
});
