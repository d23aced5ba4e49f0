/**
 * Issue 35: a deployment's sign-in page plugin draws the second step (`renderSecondFactor`)
 * while the host decides when it is needed, checks the code (single use) and goes on.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { createKeyProtector } from '../../src/oauth/keys/key-protection.js';
import { createSecondFactorService } from '../../src/second-factor/second-factors.js';
import { firstPartyPlugins, startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, Browser, formsOf, signInConfig, webRequest } from '../support/sign-in.js';
import { fromBase32, totpAt } from '../support/totp.js';

const fixtures = fileURLToPath(new URL('../fixtures/second-factor-look', import.meta.url));
const lee = { subjectId: 'sub-lee', username: 'lee', password: 'lee-password-1' };
let server: TestServer;
let key: Buffer;

beforeAll(async () => {
  server = await startServer(await signInConfig({ pluginDirs: [firstPartyPlugins, fixtures] }));
  await server.app.store.users.add({
    subjectId: lee.subjectId, username: lee.username, email: undefined, emailVerified: false, claims: {}, disabled: false,
    passwordHash: await hashPassword(lee.password, { ln: 4, r: 8, p: 1 }), createdAt: Date.now(),
  });
  // Lee has one-time codes already (set up through the service, as the account page does).
  const factors = createSecondFactorService({
    factors: () => server.app.store.factors, protector: createKeyProtector([]), issuer: server.url, clock: { now: () => Date.now() },
    throttle: { attempt: async (_name, _address, check, accepted) => { const result = await check(); return { outcome: accepted(result) ? 'accepted' : 'rejected', result }; } },
  });
  const enrolment = (await factors.startEnrolment(lee.subjectId, lee.username))!;
  key = fromBase32(enrolment.secret);
  expect((await factors.confirmEnrolment(lee.subjectId, totpAt(key, Date.now() - 30_000), undefined, 'test')).outcome).toBe('accepted');
});
afterAll(() => server?.close());

describe('a plugin\'s second-step page', () => {
  it('is drawn by the plugin with the host\'s hidden fields; the host checks the code', async () => {
    const browser = new Browser(server.url);
    const signIn = await browser.get(authorizeUrl(server, webRequest().params));
    const page = await browser.submit(signIn, { username: lee.username, password: lee.password });
    expect(page.html).toContain('<h1>Example Corp: your code for Demo web app</h1>');
    expect(Object.keys(formsOf(page.html)[0]!.fields)).toEqual(['step', 'interaction', 'csrf']);
    const wrong = await browser.submit(page, { code: '12345x' });
    expect(wrong.html).toContain('<p role="alert">That code is not right, or it was used already. Enter the code the app shows now.</p>');
    const right = await browser.submit(wrong, { code: totpAt(key, Date.now()) });
    expect(right.status).toBe(303);
    expect(right.location!.searchParams.has('code')).toBe(true);
  });
});
