/**
 * A required `acr` (issue 35, RFC 9470 step-up), over HTTP: an API with `requiredAcr: 'mfa'`
 * gets tokens only for a sign-in with a second factor, whichever way they come (the authorize
 * flow asks for the factor first; delegation and token exchange judge the subject token's
 * sign-in and carry it on; the device page lets only a session with a second factor approve a
 * flow for it), and `userInfo.requiredAcr` answers a password-only token with 401
 * `insufficient_user_authentication` and `acr_values` in its challenge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import type { ClientConfig } from '../../src/config/schema.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, signInAndAuthorize, signInClients, signInConfig, webRedirect, webRequest } from '../support/sign-in.js';
import { fromBase32, totpAt } from '../support/totp.js';

const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';
const tokenExchange = 'urn:ietf:params:oauth:grant-type:token-exchange';
const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';
const grace = { subjectId: 'sub-grace', username: 'grace', password: 'grace-password-1' };

const secretOf = (clientId: string): string => `${clientId}-secret`;
const client = (clientId: string, rest: Omit<ClientConfig, 'clientId' | 'clientSecrets'>): ClientConfig => ({ clientId, clientSecrets: [{ value: hashSecret(secretOf(clientId)) }], ...rest });

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig({
    apiScopes: [{ name: 'api1.read' }, { name: 'payroll.read', description: 'Read your payslips' }],
    apiResources: [
      { name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] },
      { name: 'payroll', scopes: ['payroll.read'], requiredAcr: 'mfa', secrets: [{ value: hashSecret('payroll-secret') }] },
    ],
    userInfo: { requiredAcr: 'mfa' },
    clients: [
      ...signInClients,
      client('payroll-web', { allowedGrantTypes: ['authorization_code', 'password'], allowedScopes: ['openid', 'profile', 'api1.read', 'payroll.read'], redirectUris: [webRedirect] }),
      // api1's back end calls payroll for the user: delegation and token exchange of tokens addressed to api1.
      client('api1.client', { allowedGrantTypes: ['delegation'], allowedScopes: ['api1.read', 'payroll.read'], allowedSubjectTokenAudiences: ['api1'] }),
      { clientId: 'tv', clientName: 'Living room TV', requireClientSecret: false, allowedGrantTypes: [deviceGrant], allowedScopes: ['openid', 'payroll.read'] },
      client('exchanger', { allowedGrantTypes: [tokenExchange], allowedScopes: ['api1.read', 'payroll.read'], allowedSubjectTokenAudiences: ['api1'] }),
    ],
  }));
  await server.app.store.users.add({
    subjectId: grace.subjectId, username: grace.username, email: undefined, emailVerified: false, claims: { name: 'Grace Hopper' }, disabled: false,
    passwordHash: await hashPassword(grace.password, { ln: 4, r: 8, p: 1 }), createdAt: Date.now(),
  });
});
afterAll(() => server?.close());

async function redeem(clientId: string, code: string, verifier: string): Promise<string> {
  const res = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code, redirect_uri: webRedirect, code_verifier: verifier }, {
    authorization: basic(clientId, secretOf(clientId)),
  });
  expect(res.status).toBe(200);
  return (res.body as { access_token: string }).access_token;
}

/** Alice (a config user, password only) signs in at web for api1. */
async function passwordToken(): Promise<string> {
  const flow = webRequest({ scope: 'openid api1.read' });
  const location = await signInAndAuthorize(server, new Browser(server.url), flow.params);
  const res = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code: location.searchParams.get('code')!, redirect_uri: webRedirect, code_verifier: flow.verifier }, {
    authorization: basic('web', 'web-secret'),
  });
  return (res.body as { access_token: string }).access_token;
}

const delegate = (token: string, scope = 'payroll.read') =>
  postForm(`${server.url}/connect/token`, { grant_type: 'delegation', token, scope }, { authorization: basic('api1.client', secretOf('api1.client')) });
const exchange = (token: string, audience = 'payroll', scope = 'payroll.read') =>
  postForm(`${server.url}/connect/token`, { grant_type: tokenExchange, subject_token: token, subject_token_type: accessTokenType, audience, scope }, {
    authorization: basic('exchanger', secretOf('exchanger')),
  });
const userInfo = (token: string) => fetch(`${server.url}/connect/userinfo`, { headers: { authorization: `Bearer ${token}` } });

const refusal = { error: 'invalid_grant', error_description: 'The user\'s sign-in does not meet the authentication class this API requires (acr mfa); the user must sign in again with it.' };

describe('an API with requiredAcr mfa', () => {
  let mfaToken: string;
  let recoveryCodes: string[] = [];

  it('asks for a second factor before a code for its scopes exists: a user the database keeps sets one up, the token says mfa', async () => {
    const browser = new Browser(server.url);
    const flow = webRequest({ scope: 'openid api1.read payroll.read' }, 'payroll-web');
    let page = await browser.get(authorizeUrl(server, flow.params));
    page = await browser.submit(page, { username: grace.username, password: grace.password });
    expect(page.html).toContain('<h1>Set up one-time codes</h1>');
    const key = fromBase32(/id="totp-secret">([A-Z2-7 ]+)</.exec(page.html)![1]!.replaceAll(' ', ''));
    page = await browser.submit(page, { code: totpAt(key, Date.now()) });
    expect(page.html).toContain('<h1>Save your recovery codes</h1>');
    recoveryCodes = [...page.html.matchAll(/<li>([A-Z2-7]{4}(?:-[A-Z2-7]{4}){3})<\/li>/g)].map((m) => m[1]!);
    expect(recoveryCodes).toHaveLength(10);
    page = await browser.submit(page, {});
    expect(page.status).toBe(303);
    mfaToken = await redeem('payroll-web', page.location!.searchParams.get('code')!, flow.verifier);
    expect(decodeJwt(mfaToken)).toMatchObject({ sub: grace.subjectId, acr: 'mfa', aud: ['api1', 'payroll'] });
  });

  it('refuses a user who cannot give a second factor at the authorization endpoint, and the password grant at the token endpoint', async () => {
    const flow = webRequest({ scope: 'openid payroll.read' }, 'payroll-web');
    const browser = new Browser(server.url);
    const location = await signInAndAuthorize(server, browser, flow.params);
    expect(location.searchParams.get('error')).toBe('unmet_authentication_requirements');

    const password = await postForm(`${server.url}/connect/token`, { grant_type: 'password', username: alice.username, password: alice.password, scope: 'payroll.read' }, {
      authorization: basic('payroll-web', secretOf('payroll-web')),
    });
    expect(password.status).toBe(400);
    expect(password.body).toEqual(refusal);
    // A token for an API without the requirement is issued as before.
    const other = await postForm(`${server.url}/connect/token`, { grant_type: 'password', username: alice.username, password: alice.password, scope: 'api1.read' }, {
      authorization: basic('payroll-web', secretOf('payroll-web')),
    });
    expect(other.status).toBe(200);
  });

  it('delegation: a password-only subject token is invalid_grant, an mfa one is delegated and keeps its acr and amr', async () => {
    const pwd = await passwordToken();
    expect(decodeJwt(pwd)).toMatchObject({ acr: 'pwd', amr: ['pwd'] });
    const refused = await delegate(pwd);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(refusal);
    // The same token for an API that demands nothing is delegated.
    expect((await delegate(pwd, 'api1.read')).status).toBe(200);

    const res = await delegate(mfaToken);
    expect(res.status).toBe(200);
    expect(decodeJwt((res.body as { access_token: string }).access_token)).toMatchObject({
      sub: grace.subjectId, aud: 'payroll', acr: 'mfa', amr: ['pwd', 'otp', 'mfa'], act: { client_id: 'payroll-web' },
    });
  });

  it('token exchange: a password-only subject token is invalid_grant, an mfa one is exchanged and keeps its acr and amr', async () => {
    const pwd = await passwordToken();
    const refused = await exchange(pwd);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(refusal);
    expect((await exchange(pwd, 'api1', 'api1.read')).status).toBe(200);

    const res = await exchange(mfaToken);
    expect(res.status).toBe(200);
    const claims = decodeJwt((res.body as { access_token: string }).access_token);
    expect(claims).toMatchObject({ sub: grace.subjectId, aud: 'payroll', acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
    // The API reads the same through introspection.
    const introspected = await postForm(`${server.url}/connect/introspect`, { token: (res.body as { access_token: string }).access_token }, { authorization: basic('payroll', 'payroll-secret') });
    expect(introspected.body).toMatchObject({ active: true, acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
  });

  it('the device page: a person without a second factor cannot approve a flow for the API and is told why; one with a factor gives it and can', async () => {
    async function deviceSignIn(browser: Browser) {
      const codes = (await postForm(`${server.url}/connect/deviceauthorization`, { client_id: 'tv', scope: 'openid payroll.read' })).body as { device_code: string; verification_uri_complete: string };
      const entry = await browser.get(codes.verification_uri_complete);
      const userCode = /id="user_code" name="user_code" value="([^"]*)"/.exec(entry.html)![1]!;
      return { form: await browser.submit(entry, { user_code: userCode }), deviceCode: codes.device_code };
    }
    const plain = new Browser(server.url);
    const { form, deviceCode } = await deviceSignIn(plain);
    const refused = await plain.submit(form, { username: alice.username, password: alice.password });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('<h1>A second factor is needed</h1>');
    expect(refused.html).toContain('This device asks for access that needs a second factor, and you signed in without one.');
    expect((await postForm(`${server.url}/connect/token`, { grant_type: deviceGrant, device_code: deviceCode, client_id: 'tv' })).body).toMatchObject({ error: 'authorization_pending' });

    const strong = new Browser(server.url);
    const second = await deviceSignIn(strong);
    const asked = await strong.submit(second.form, { username: grace.username, password: grace.password });
    expect(asked.html).toContain('<label for="code">One-time code or recovery code</label>');
    const consent = await strong.submit(asked, { username: grace.username, password: grace.password, code: recoveryCodes[0]! });
    expect(consent.html).toContain('<h1>Allow access?</h1>');
    expect((await strong.submit(consent, { decision: 'approve' })).status).toBe(200);
    const tokens = await postForm(`${server.url}/connect/token`, { grant_type: deviceGrant, device_code: second.deviceCode, client_id: 'tv' });
    expect(tokens.status).toBe(200);
    expect(decodeJwt((tokens.body as { access_token: string }).access_token)).toMatchObject({ sub: grace.subjectId, aud: 'payroll', acr: 'mfa' });
  });

  it('userInfo.requiredAcr: a password-only token is 401 insufficient_user_authentication (RFC 9470) naming the class; an mfa token gets the claims', async () => {
    const refused = await userInfo(await passwordToken());
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer realm="svc", error="insufficient_user_authentication", error_description="The user must sign in with a stronger authentication.", acr_values="mfa"',
    );
    expect(await refused.json()).toMatchObject({ error: 'insufficient_user_authentication' });

    const answered = await userInfo(mfaToken);
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ sub: grace.subjectId, acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
  });
});
