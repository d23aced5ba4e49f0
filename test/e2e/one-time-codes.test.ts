/**
 * One-time codes (TOTP) and recovery codes at sign-in (issue 35), through the pages as a browser
 * without JavaScript posts them: a client with `requireMfa` leads a database user without a
 * factor to set one up, then every sign-in asks for a code; a replayed code, a code outside the
 * one-step window and a spent recovery code are refused; wrong codes are throttled; the stored
 * secret is sealed; openid-client receives `amr` and `acr`; `acr_values` and the `claims`
 * parameter's essential `acr` are honoured. Codes are computed by the tests' own RFC 6238.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import * as openid from 'openid-client';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, redeemWeb, signInClients, signInConfig, webRedirect, webRequest, type Page } from '../support/sign-in.js';
import { fromBase32, totpAt } from '../support/totp.js';
import type { UserConfig } from '../../src/config/schema.js';

const kekEnv = 'SVC_TEST_KEK_TOTP';
const grace = { subjectId: 'sub-grace', username: 'grace', password: 'grace-password-1' };
const mfaClient = {
  clientId: 'mfa-web', clientName: 'Payroll', clientSecrets: [{ value: hashSecret('web-secret') }], requireMfa: true,
  allowedGrantTypes: ['authorization_code', 'refresh_token'], allowedScopes: ['openid', 'profile', 'api1.read'], allowOfflineAccess: true, redirectUris: [webRedirect],
};
const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';
const tv = { clientId: 'tv', clientName: 'Living room TV', requireClientSecret: false, allowedGrantTypes: [deviceGrant], allowedScopes: ['openid', 'profile'] };
const introspector = { name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] };

async function start(overrides: Partial<UserConfig> = {}): Promise<TestServer> {
  const server = await startServer(await signInConfig({
    clients: [...signInClients, mfaClient, tv],
    apiResources: [introspector],
    signing: { keyEncryptionKeys: [{ env: kekEnv }] },
    ...overrides,
  }));
  await server.app.store.users.add({
    subjectId: grace.subjectId, username: grace.username, email: undefined, emailVerified: false, claims: { name: 'Grace Hopper' }, disabled: false,
    passwordHash: await hashPassword(grace.password, { ln: 4, r: 8, p: 1 }), createdAt: Date.now(),
  });
  return server;
}

let server: TestServer;
/** Grace's secret as the enrolment page showed it, and her recovery codes. */
let key: Buffer;
let secretShown: string;
let recoveryCodes: string[];
let enrolmentCode: string;

beforeAll(async () => {
  process.env[kekEnv] = randomBytes(32).toString('base64');
  server = await start();
});
afterAll(async () => {
  await server?.close();
  delete process.env[kekEnv];
});

const codeOf = (location: URL | undefined): string => location!.searchParams.get('code')!;
const secretOn = (page: Page): string => /id="totp-secret">([A-Z2-7 ]+)</.exec(page.html)![1]!.replaceAll(' ', '');
const recoveryOn = (page: Page): string[] => [...page.html.matchAll(/<li>([A-Z2-7]{4}(?:-[A-Z2-7]{4}){3})<\/li>/g)].map((m) => m[1]!);

/** Opens the authorization URL and signs in with the password; returns the page after it. */
async function passwordStep(browser: Browser, params: Record<string, string>, user: { username: string; password: string } = grace): Promise<Page> {
  const page = await browser.get(authorizeUrl(server, params));
  expect(page.html).toContain('<h1>Sign in</h1>');
  return browser.submit(page, { username: user.username, password: user.password });
}

describe('one-time codes', () => {
  it('a client with requireMfa leads a user without a factor to set one up; a wrong first code is refused; the tokens say mfa', async () => {
    const browser = new Browser(server.url);
    const flow = webRequest({ scope: 'openid profile api1.read offline_access' }, 'mfa-web');
    const enrol = await passwordStep(browser, flow.params);
    expect(enrol.status).toBe(200);
    expect(enrol.html).toContain('<h1>Set up one-time codes</h1>');
    expect(enrol.html).toMatch(/<svg class="qr" role="img" aria-label="QR code to add this account to an authenticator app"/);
    expect(enrol.html).toContain('<label for="code">6-digit code from the app</label>');
    secretShown = secretOn(enrol);
    key = fromBase32(secretShown);

    const wrong = await browser.submit(enrol, { code: totpAt(key, Date.now() - 5 * 60_000) });
    expect(wrong.html).toContain('<p class="notice" role="alert">That code is not right, or it was used already.');
    expect(secretOn(wrong)).toBe(secretShown);

    enrolmentCode = totpAt(key, Date.now());
    const saved = await browser.submit(wrong, { code: enrolmentCode });
    expect(saved.html).toContain('<h1>Save your recovery codes</h1>');
    recoveryCodes = recoveryOn(saved);
    expect(recoveryCodes).toHaveLength(10);
    const done = await browser.submit(saved, {});
    expect(done.status).toBe(303);
    const tokens = await postForm(`${server.url}/connect/token`, { grant_type: 'authorization_code', code: codeOf(done.location), redirect_uri: webRedirect, code_verifier: flow.verifier }, {
      authorization: `Basic ${Buffer.from('mfa-web:web-secret').toString('base64')}`,
    });
    expect(tokens.status).toBe(200);
    const body = tokens.body as { id_token: string; access_token: string; refresh_token: string };
    expect(decodeJwt(body.id_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'mfa', name: 'Grace Hopper' });
    expect(decodeJwt(body.access_token)).toMatchObject({ acr: 'mfa', amr: ['pwd', 'otp', 'mfa'], auth_time: expect.any(Number) });
    // RFC 9470: introspection reports acr and auth_time; UserInfo says acr and amr too.
    const introspected = await postForm(`${server.url}/connect/introspect`, { token: body.access_token }, { authorization: `Basic ${Buffer.from('api1:api1-secret').toString('base64')}` });
    expect(introspected.body).toMatchObject({ active: true, acr: 'mfa', auth_time: expect.any(Number) });
    const info = await fetch(`${server.url}/connect/userinfo`, { headers: { authorization: `Bearer ${body.access_token}` } });
    expect(await info.json()).toMatchObject({ sub: grace.subjectId, acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
    // A refresh keeps them.
    const refreshed = await postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: body.refresh_token }, {
      authorization: `Basic ${Buffer.from('mfa-web:web-secret').toString('base64')}`,
    });
    expect(decodeJwt((refreshed.body as { id_token: string }).id_token)).toMatchObject({ acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
    // Nothing secret in the page after, the log or the events.
    expect(done.html).not.toContain(secretShown);
    expect(server.logText()).not.toContain(secretShown);
    expect(server.logText()).not.toContain(enrolmentCode);
    expect(server.logText()).toContain('second_factor.enrolled');
  });

  it('keeps the secret sealed with the key-encryption key, never plain', async () => {
    const stored = await server.app.store.factors.get(grace.subjectId);
    expect(stored.totp?.confirmedAt).toBeTypeOf('number');
    expect(stored.totp!.secret).not.toContain(secretShown);
    expect(JSON.parse(stored.totp!.secret)).toMatchObject({ sealed: 'A256GCM' });
    // Recovery codes are hashes: none of the codes shown is in the store.
    for (const code of recoveryCodes) expect(JSON.stringify(stored.recoveryCodes)).not.toContain(code.replaceAll('-', ''));
  });

  it('asks every later sign-in for a code: a replayed code and one outside the one-step window are refused, the next step\'s works', async () => {
    const browser = new Browser(server.url);
    const flow = webRequest();
    const ask = await passwordStep(browser, flow.params);
    expect(ask.html).toContain('<h1>Enter your one-time code</h1>');
    expect(ask.html).toContain('<label for="code">One-time code or recovery code</label>');
    const replayed = await browser.submit(ask, { code: enrolmentCode });
    expect(replayed.status).toBe(200);
    expect(replayed.html).toContain('That code is not right, or it was used already.');
    const early = await browser.submit(replayed, { code: totpAt(key, Date.now() - 90_000) });
    expect(early.html).toContain('That code is not right, or it was used already.');
    const late = await browser.submit(early, { code: totpAt(key, Date.now() + 90_000) });
    expect(late.html).toContain('That code is not right, or it was used already.');
    const next = await browser.submit(late, { code: totpAt(key, Date.now() + 30_000) });
    expect(next.status).toBe(303);
    const tokens = await redeemWeb(server, codeOf(next.location), flow.verifier);
    expect(decodeJwt((tokens.body as { id_token: string }).id_token)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'mfa' });
    expect(server.logText()).toContain('"reason":"replayed"');
  });

  it('takes a recovery code once, in place of a one-time code', async () => {
    const first = new Browser(server.url);
    const ask = await passwordStep(first, webRequest().params);
    const used = await first.submit(ask, { code: recoveryCodes[0]!.toLowerCase() });
    expect(used.status).toBe(303);
    const second = new Browser(server.url);
    const again = await second.submit(await passwordStep(second, webRequest().params), { code: recoveryCodes[0]! });
    expect(again.status).toBe(200);
    expect(again.html).toContain('That code is not right, or it was used already.');
    expect((await server.app.store.factors.get(grace.subjectId)).recoveryCodes.filter((c) => c.usedAt === undefined)).toHaveLength(9);
  });

  it('openid-client receives amr and acr in the ID token; acr_values=mfa (voluntary) is met', async () => {
    const config = await openid.discovery(new URL(server.url), 'web', { client_secret: 'web-secret' }, undefined, { execute: [openid.allowInsecureRequests] });
    expect(config.serverMetadata()).toMatchObject({ acr_values_supported: ['pwd', 'mfa'], claims_parameter_supported: true });
    const verifier = openid.randomPKCECodeVerifier();
    const nonce = openid.randomNonce();
    const url = openid.buildAuthorizationUrl(config, {
      redirect_uri: webRedirect, scope: 'openid profile', nonce, acr_values: 'mfa',
      code_challenge: await openid.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    const browser = new Browser(server.url);
    const ask = await passwordStep(browser, Object.fromEntries(url.searchParams));
    const done = await browser.submit(ask, { code: recoveryCodes[1]! });
    const tokens = await openid.authorizationCodeGrant(config, done.location!, { pkceCodeVerifier: verifier, expectedNonce: nonce, idTokenExpected: true });
    expect(tokens.claims()).toMatchObject({ sub: grace.subjectId, acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
  });

  it('a config user: pwd for acr_values=mfa (voluntary); an essential mfa, or a client requiring it, is unmet_authentication_requirements', async () => {
    const voluntary = webRequest({ acr_values: 'mfa' });
    const browser = new Browser(server.url);
    const done = await passwordStep(browser, voluntary.params, alice);
    expect(done.status).toBe(303);
    const tokens = await redeemWeb(server, codeOf(done.location), voluntary.verifier);
    expect(decodeJwt((tokens.body as { id_token: string }).id_token)).toMatchObject({ acr: 'pwd', amr: ['pwd'] });

    const essential = webRequest({ claims: JSON.stringify({ id_token: { acr: { essential: true, values: ['mfa'] } } }) });
    const refused = await browser.get(authorizeUrl(server, essential.params));
    expect(refused.status).toBe(303);
    expect(refused.location!.searchParams.get('error')).toBe('unmet_authentication_requirements');
    expect(refused.location!.searchParams.get('state')).toBe(essential.params.state);

    const unknownClass = webRequest({ claims: JSON.stringify({ id_token: { acr: { essential: true, value: 'urn:example:loa:4' } } }) });
    expect((await browser.get(authorizeUrl(server, unknownClass.params))).location!.searchParams.get('error')).toBe('unmet_authentication_requirements');

    const mfaOnly = webRequest({}, 'mfa-web');
    expect((await browser.get(authorizeUrl(server, mfaOnly.params))).location!.searchParams.get('error')).toBe('unmet_authentication_requirements');
    const malformed = webRequest({ claims: '{not json' });
    expect((await browser.get(authorizeUrl(server, malformed.params))).location!.searchParams.get('error')).toBe('invalid_request');
  });

  it('prompt=login and max_age=0 ask for the password and the code again', async () => {
    const browser = new Browser(server.url);
    const ask = await passwordStep(browser, webRequest().params);
    expect((await browser.submit(ask, { code: recoveryCodes[2]! })).status).toBe(303);
    // Single sign-on: the session has mfa, no page.
    expect((await browser.get(authorizeUrl(server, webRequest({}, 'mfa-web').params))).status).toBe(303);
    const again = await browser.get(authorizeUrl(server, webRequest({ prompt: 'login' }).params));
    expect(again.html).toContain('<h1>Sign in</h1>');
    const code = await browser.submit(again, { username: grace.username, password: grace.password });
    expect(code.html).toContain('<h1>Enter your one-time code</h1>');
    // max_age=0 asks for a new sign-in too, and so for the code.
    expect((await browser.submit(code, { code: recoveryCodes[4]! })).status).toBe(303);
    const aged = await browser.get(authorizeUrl(server, webRequest({ max_age: '0' }).params));
    expect(aged.html).toContain('<h1>Sign in</h1>');
    expect((await browser.submit(aged, { username: grace.username, password: grace.password })).html).toContain('<h1>Enter your one-time code</h1>');
  });
});

describe('the device page', () => {
  async function deviceSignIn(browser: Browser): Promise<{ page: Page; deviceCode: string }> {
    const codes = (await postForm(`${server.url}/connect/deviceauthorization`, { client_id: 'tv', scope: 'openid profile' })).body as { device_code: string; verification_uri_complete: string };
    const entry = await browser.get(codes.verification_uri_complete);
    const userCode = /id="user_code" name="user_code" value="([^"]*)"/.exec(entry.html)![1]!;
    return { page: await browser.submit(entry, { user_code: userCode }), deviceCode: codes.device_code };
  }

  it('asks a user with one-time codes for a code with the password; the tokens say mfa', async () => {
    const browser = new Browser(server.url);
    const { page: form, deviceCode } = await deviceSignIn(browser);
    const asked = await browser.submit(form, { username: grace.username, password: grace.password });
    expect(asked.status).toBe(200);
    expect(asked.html).toContain('Your account uses one-time codes: enter your password again with the code from your authenticator app.');
    expect(asked.html).toContain('<label for="code">One-time code or recovery code</label>');
    const wrong = await browser.submit(asked, { username: grace.username, password: grace.password, code: '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('The username, password or code is not right.');
    const consent = await browser.submit(wrong, { username: grace.username, password: grace.password, code: recoveryCodes[3]! });
    expect(consent.html).toContain('<h1>Allow access?</h1>');
    expect((await browser.submit(consent, { decision: 'approve' })).status).toBe(200);
    const tokens = await postForm(`${server.url}/connect/token`, { grant_type: deviceGrant, device_code: deviceCode, client_id: 'tv' });
    expect(decodeJwt((tokens.body as { id_token: string }).id_token)).toMatchObject({ sub: grace.subjectId, acr: 'mfa', amr: ['pwd', 'otp', 'mfa'] });
  });

  it('does not count the session of a password step whose code was never given', async () => {
    const browser = new Browser(server.url);
    const ask = await passwordStep(browser, webRequest().params);
    expect(ask.html).toContain('<h1>Enter your one-time code</h1>');
    const { page } = await deviceSignIn(browser);
    expect(page.html).toContain('<h1>Sign in</h1>');
    expect(page.html).not.toContain('Allow access?');
  });
});

describe('throttling and the enrolment policy', () => {
  it('counts wrong codes like wrong passwords: 429 with Retry-After', async () => {
    const strict = await start({ passwordThrottle: { pairThreshold: 2, userThreshold: 10_000, addressThreshold: 10_000 }, secondFactor: { enrolmentRequired: true } });
    try {
      const previous = server;
      server = strict;
      const browser = new Browser(strict.url);
      // Every user must enrol: the password sign-in leads straight to the enrolment page.
      const enrol = await passwordStep(browser, webRequest().params);
      expect(enrol.html).toContain('<h1>Set up one-time codes</h1>');
      expect(enrol.html).toContain('Your account needs a second factor before you can continue.');
      const answers: Page[] = [];
      let page = enrol;
      for (let i = 0; i < 3; i++) {
        page = await browser.submit(page, { code: '000000' === totpAt(fromBase32(secretOn(enrol)), Date.now()) ? '111111' : '000000' });
        answers.push(page);
      }
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      expect(answers[2]!.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answers[2]!.html).toContain('Too many wrong codes.');
      // A config user has no factor to set up: the policy lets them through.
      const other = new Browser(strict.url);
      expect((await passwordStep(other, webRequest().params, alice)).status).toBe(303);
      server = previous;
    } finally {
      await strict.close();
    }
  });
});
