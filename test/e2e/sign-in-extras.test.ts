/**
 * More of what a person and a client see in the sign-in flow: the password throttle on the
 * page, login_hint, a private_key_jwt client redeeming its code, a browser SPA redeeming with
 * CORS, and the events the flow raises (never with a password, code or token).
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { eventRecording, eventSinkPlugins } from '../support/event-recorder.js';
import { firstPartyPlugins } from '../support/server.js';
import { alice, authorizeUrl, Browser, signInAndAuthorize, signInClients, signInConfig, spaRedirect, webRequest } from '../support/sign-in.js';

let server: TestServer;
const recording = eventRecording();
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwtRedirect = 'https://jwt.example.com/cb';

beforeAll(async () => {
  server = await startServer(await signInConfig({
    pluginDirs: [firstPartyPlugins, eventSinkPlugins],
    plugins: { 'event-recorder': recording.options },
    passwordThrottle: { pairThreshold: 3, userThreshold: 100, addressThreshold: 100 },
    clients: [
      ...signInClients,
      {
        clientId: 'jwt-web', clientSecrets: [{ type: 'JsonWebKey', value: JSON.stringify(await exportJWK(publicKey)) }],
        allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: [jwtRedirect],
      },
    ],
  }));
});
afterAll(async () => {
  await server.close();
  recording.remove();
});

describe('the sign-in page', () => {
  it('throttles wrong passwords like the password grant: 429 with Retry-After, on the page', async () => {
    const browser = new Browser(server.url);
    let page = await browser.get(authorizeUrl(server, webRequest().params));
    for (let i = 0; i < 3; i++) page = await browser.submit(page, { username: 'bob', password: `wrong-${i}` });
    const throttled = await browser.submit(page, { username: 'bob', password: 'bob-password-1' });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(throttled.html).toContain('<p class="notice" role="alert">Too many failed sign-ins. Wait a few minutes and try again.</p>');
  });

  it('prefills the username from login_hint, escaped', async () => {
    const page = await new Browser(server.url).get(authorizeUrl(server, webRequest({ login_hint: 'alice"><b>' }).params));
    expect(page.html).toContain('name="username" value="alice&quot;&gt;&lt;b&gt;"');
  });
});

describe('redeeming', () => {
  it('a private_key_jwt client authenticates at the token endpoint with its assertion', async () => {
    const { params, verifier } = webRequest({ scope: 'openid' }, 'jwt-web', jwtRedirect);
    const location = await signInAndAuthorize(server, new Browser(server.url), params);
    const assertion = await new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('jwt-web').setSubject('jwt-web').setAudience(server.url)
      .setIssuedAt().setExpirationTime('1m')
      .sign(privateKey);
    const res = await postForm(`${server.url}/connect/token`, {
      grant_type: 'authorization_code', code: location.searchParams.get('code')!, redirect_uri: jwtRedirect, code_verifier: verifier,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion,
    });
    expect(res.status).toBe(200);
    expect(typeof res.body.id_token).toBe('string');
  });

  it('a browser SPA redeems from its own origin (CORS)', async () => {
    const { params, verifier } = webRequest({ scope: 'openid' }, 'spa', spaRedirect);
    const location = await signInAndAuthorize(server, new Browser(server.url), params);
    const res = await fetch(`${server.url}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'spa', code: location.searchParams.get('code')!, redirect_uri: spaRedirect, code_verifier: verifier }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1');
  });
});

describe('events', () => {
  it('sign-in failed and succeeded, consent given and denied, code issued and redeemed; no secrets in them', async () => {
    const { result, events } = await recording.during(async () => {
      const browser = new Browser(server.url);
      const signIn = await browser.get(authorizeUrl(server, webRequest({ scope: 'openid' }, 'spa', spaRedirect).params));
      const wrong = await browser.submit(signIn, { username: alice.username, password: 'not-alices-password' });
      const consent = await browser.submit(wrong, { username: alice.username, password: alice.password });
      const done = await browser.submit(consent, { decision: 'approve' });
      const second = webRequest({ scope: 'openid api1.read', prompt: 'consent' }, 'spa', spaRedirect);
      const again = await browser.get(authorizeUrl(server, second.params));
      await browser.submit(again, { decision: 'deny' });
      return done.location!.searchParams.get('code')!;
    });
    const types = events.map((e) => e.type);
    expect(types).toEqual(['user.sign_in_failed', 'user.signed_in', 'consent.given', 'code.issued', 'consent.denied']);
    expect(events[0]).toMatchObject({ via: 'sign_in_page', reason: 'rejected by the sign-in check' });
    expect(events[2]).toMatchObject({ clientId: 'spa', subject: alice.subjectId, scopes: ['openid'] });
    const text = JSON.stringify(events);
    expect(text).not.toContain('not-alices-password');
    expect(text).not.toContain(result);
  });
});
