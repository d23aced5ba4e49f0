/**
 * The password change page, /account/password (issue 34): a user the database keeps changes
 * their password with the current one; the page refuses a wrong current password (counted by
 * the password throttle), two different new ones, one the rules refuse, and config users; the
 * new password then works and the old one does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { alice, Browser, signInAndAuthorize, signInClients, signInConfig, webRequest } from '../support/sign-in.js';
import { hashSecret } from '../../src/sdk/hash.js';

const cheap = { ln: 4, r: 8, p: 1 };
let server: TestServer;

async function startWithGrace(overrides: Parameters<typeof signInConfig>[0] = {}): Promise<TestServer> {
  const started = await startServer(await signInConfig({
    passwordRules: { minLength: 10, refused: ['correct horse'] },
    clients: [...signInClients, { clientId: 'app', clientSecrets: [{ value: hashSecret('app-secret') }], allowedGrantTypes: ['password'], allowedScopes: ['api1.read'] }],
    ...overrides,
  }));
  await started.app.store.users.add({
    subjectId: 'sub-grace', username: 'grace', email: undefined, emailVerified: false, claims: {}, disabled: false,
    passwordHash: await hashPassword('grace-password-1', cheap), createdAt: Date.now(),
  });
  return started;
}

const grant = (s: TestServer, username: string, password: string) =>
  postForm(`${s.url}/connect/token`, { grant_type: 'password', username, password, scope: 'api1.read' }, { authorization: basic('app', 'app-secret') });

beforeAll(async () => {
  server = await startWithGrace();
});
afterAll(() => server?.close());

async function changeForm(browser: Browser, s = server) {
  const page = await browser.get(`${s.url}/account/password`);
  expect(page.status).toBe(200);
  expect(page.html).toContain('<h1>Change your password</h1>');
  return page;
}

describe('/account/password', () => {
  it('changes the password of a database user who gives the current one; the old one stops working', async () => {
    const browser = new Browser(server.url);
    const form = await changeForm(browser);
    const done = await browser.submit(form, { username: 'Grace', current_password: 'grace-password-1', new_password: 'grace-password-2', new_password_again: 'grace-password-2' });
    expect(done.status).toBe(200);
    expect(done.html).toContain('<h1>Password changed</h1>');
    expect((await grant(server, 'grace', 'grace-password-2')).status).toBe(200);
    expect(await grant(server, 'grace', 'grace-password-1')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(done.html).not.toContain('grace-password');
  });

  it('says what is wrong: a wrong current password, two different new ones, a rule broken, the same password', async () => {
    const browser = new Browser(server.url);
    const form = await changeForm(browser);
    const submit = (fields: Record<string, string>) => browser.submit(form, { username: 'grace', current_password: 'grace-password-2', new_password: 'a new password 3', new_password_again: 'a new password 3', ...fields });
    const wrong = await submit({ current_password: 'not it' });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('The username or current password is incorrect.');
    expect((await submit({ new_password_again: 'something else' })).html).toContain('The two new passwords differ.');
    expect((await submit({ new_password: 'short', new_password_again: 'short' })).html).toContain('The new password is too short: use at least 10 characters.');
    expect((await submit({ new_password: 'Correct Horse', new_password_again: 'Correct Horse' })).html).toContain('The new password is too common. Choose another.');
    expect((await submit({ new_password: 'grace-password-2', new_password_again: 'grace-password-2' })).html).toContain('The new password is the current one. Choose another.');
    expect((await grant(server, 'grace', 'grace-password-2')).status).toBe(200);
  });

  it('a config user is told the password cannot be changed here; a form without its CSRF token is refused', async () => {
    const browser = new Browser(server.url);
    const form = await changeForm(browser);
    const page = await browser.submit(form, { username: alice.username, current_password: alice.password, new_password: 'alice-password-2', new_password_again: 'alice-password-2' });
    expect(page.status).toBe(400);
    expect(page.html).toContain('The password of this account cannot be changed here.');
    const forged = await new Browser(server.url).post(`${server.url}/account/password`, { username: 'grace', current_password: 'grace-password-2', new_password: 'x'.repeat(12), new_password_again: 'x'.repeat(12) });
    expect(forged.status).toBe(400);
    expect(forged.html).toContain('This form has expired or did not come from this page.');
  });

  it('fills in the username of a browser that is signed in, and speaks German when asked', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params, alice);
    const page = await browser.get(`${server.url}/account/password?ui_locales=de`);
    expect(page.html).toContain('<h1>Passwort ändern</h1>');
    expect(page.html).toContain('name="username" value="alice"');
  });

  it('counts wrong current passwords with the password throttle', async () => {
    const strict = await startWithGrace({ passwordThrottle: { pairThreshold: 2, userThreshold: 10_000, addressThreshold: 10_000 } });
    try {
      const browser = new Browser(strict.url);
      const form = await changeForm(browser, strict);
      const attempt = () => browser.submit(form, { username: 'grace', current_password: 'guess', new_password: 'a new password 3', new_password_again: 'a new password 3' });
      const answers = [await attempt(), await attempt(), await attempt()];
      expect(answers.map((a) => a.status)).toEqual([400, 400, 429]);
      expect(answers[2]!.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answers[2]!.html).toContain('Too many failed sign-ins for this account or from your network.');
    } finally {
      await strict.close();
    }
  });
});
