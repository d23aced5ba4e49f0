/**
 * "Forgot password?" (issue 34) over HTTP, against a real SMTP server on loopback (STARTTLS and
 * AUTH, `test/support/smtp.ts`): the sign-in page links it only when `smtp` is configured; a
 * request answers the same words for a known and an unknown account and mails only the known
 * one; the link sets a new password once, ends the user's refresh tokens, and is refused when
 * used again or expired; requests are counted per address and per account; nothing secret is
 * logged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, Browser, signInClients, signInConfig, webRequest, type Page } from '../support/sign-in.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { realClockWithSkips } from '../support/clocks.js';

const cheap = { ln: 4, r: 8, p: 1 };
const dir = mkdtempSync(join(tmpdir(), 'svc-password-reset-'));
const clock = realClockWithSkips();
let smtp: TestSmtpServer;
let server: TestServer;

async function addUser(s: TestServer, username: string, email: string | undefined, password: string): Promise<void> {
  await s.app.store.users.add({
    subjectId: `sub-${username}`, username, email, emailVerified: email !== undefined, claims: {}, disabled: false,
    passwordHash: await hashPassword(password, cheap), createdAt: Date.now(),
  });
}

const grant = (username: string, password: string) =>
  postForm(`${server.url}/connect/token`, { grant_type: 'password', username, password, scope: 'api1.read offline_access' }, { authorization: basic('app', 'app-secret') });

beforeAll(async () => {
  smtp = await startSmtpServer(dir);
  server = await startServer(await signInConfig({
    passwordRules: { minLength: 10 },
    smtp: { host: '127.0.0.1', port: smtp.port, security: 'starttls', auth: { user: smtp.user, password: smtp.password }, from: 'Sign-in <no-reply@example.com>', caFile: smtp.caFile },
    clients: [...signInClients, { clientId: 'tv', requireClientSecret: false, allowedGrantTypes: ['urn:ietf:params:oauth:grant-type:device_code'], allowedScopes: ['openid'] }, {
      clientId: 'app', clientSecrets: [{ value: hashSecret('app-secret') }], allowedGrantTypes: ['password', 'refresh_token'], allowedScopes: ['api1.read'], allowOfflineAccess: true,
    }],
  }), { clock });
  await addUser(server, 'hanna', 'Hanna@Example.com', 'hanna-password-1');
  await addUser(server, 'ivo', undefined, 'ivo-password-1');
  await addUser(server, 'jo', 'jo@example.com', 'jo-password-1');
}, 60_000);
afterAll(async () => {
  await server?.close();
  await smtp?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function requestLink(browser: Browser, identifier: string): Promise<Page> {
  const form = await browser.get(`${server.url}/account/password-reset`);
  expect(form.status).toBe(200);
  expect(form.html).toContain('<h1>Reset your password</h1>');
  return browser.submit(form, { identifier });
}

function linkIn(text: string): string {
  const link = /(http:\/\/\S+\/account\/password-reset\?token=\S+)/.exec(text)?.[1];
  if (!link) throw new Error(`no link in the mail:\n${text}`);
  return link;
}

describe('Forgot password?', () => {
  it('the sign-in page links it when smtp is configured, and says nothing of it when not', async () => {
    const page = await new Browser(server.url).get(authorizeUrl(server, webRequest().params));
    expect(page.html).toContain('<a href="/account/password-reset">Forgot password?</a>');
    // The device page's sign-in form too.
    const codes = (await postForm(`${server.url}/connect/deviceauthorization`, { client_id: 'tv', scope: 'openid' })).body as { verification_uri_complete: string };
    const deviceBrowser = new Browser(server.url);
    const entry = await deviceBrowser.get(codes.verification_uri_complete);
    const deviceSignIn = await deviceBrowser.submit(entry, { user_code: /id="user_code" name="user_code" value="([^"]*)"/.exec(entry.html)![1]! });
    expect(deviceSignIn.html).toContain('<h1>Sign in</h1>');
    expect(deviceSignIn.html).toContain('<a href="/account/password-reset">Forgot password?</a>');
    const plain = await startServer(await signInConfig());
    try {
      const without = await new Browser(plain.url).get(authorizeUrl(plain, webRequest().params));
      expect(without.html).toContain('<h1>Sign in</h1>');
      expect(without.html).not.toMatch(/forgot|password-reset/i);
      expect((await fetch(`${plain.url}/account/password-reset`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('mails a link that sets a new password once; the old password and the refresh tokens stop working', async () => {
    const before = await grant('hanna', 'hanna-password-1');
    expect(before.status).toBe(200);
    const refresh = (token: string) => postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: token }, { authorization: basic('app', 'app-secret') });
    const live = await refresh(before.body.refresh_token as string);
    expect(live.status).toBe(200);
    const refreshToken = (live.body.refresh_token as string | undefined) ?? (before.body.refresh_token as string);

    const browser = new Browser(server.url);
    const arriving = smtp.next('Hanna@Example.com');
    const answer = await requestLink(browser, 'hanna@example.com');
    expect(answer.status).toBe(200);
    expect(answer.html).toContain('<h1>Check your e-mail</h1>');
    const mail = await arriving.catch((err: unknown) => { throw new Error(`${String(err)}\n${server.logText().split('\n').filter((l) => l.includes('reset')).join('\n')}`); });
    expect(mail.subject).toBe('Reset your password');
    expect(mail.from).toBe('no-reply@example.com');
    expect(mail.text).toContain('the account "hanna"');
    const link = linkIn(mail.text);

    // Followed in another browser (the mail app's), without the first one's cookie.
    const other = new Browser(server.url);
    const form = await other.get(link);
    expect(form.status).toBe(200);
    expect(form.html).toContain('<h1>Set a new password</h1>');
    expect(form.html).toContain('<strong>hanna</strong>');
    const short = await other.submit(form, { new_password: 'short', new_password_again: 'short' });
    expect(short.status).toBe(400);
    expect(short.html).toContain('The new password is too short: use at least 10 characters.');
    const differ = await other.submit(short, { new_password: 'hanna-password-2', new_password_again: 'hanna-password-3' });
    expect(differ.html).toContain('The two new passwords differ.');
    const done = await other.submit(differ, { new_password: 'hanna-password-2', new_password_again: 'hanna-password-2' });
    expect(done.status).toBe(200);
    expect(done.html).toContain('<h1>Password set</h1>');

    expect((await grant('hanna', 'hanna-password-2')).status).toBe(200);
    expect(await grant('hanna', 'hanna-password-1')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await refresh(refreshToken)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    // Once only: the link and its form are refused now.
    const again = await other.get(link);
    expect(again.status).toBe(400);
    expect(again.html).toContain('This link has been used already or has expired.');
    const replay = await other.submit(form, { new_password: 'hanna-password-4', new_password_again: 'hanna-password-4' });
    expect(replay.html).toContain('<h1>Link not usable</h1>');
    expect(await grant('hanna', 'hanna-password-4')).toMatchObject({ status: 400 });

    const events = server.logs.filter((l) => typeof (l.event as { type?: string } | undefined)?.type === 'string').map((l) => (l.event as { type: string }).type);
    expect(events).toEqual(expect.arrayContaining(['password_reset.requested', 'password_reset.sent', 'password_reset.used']));
    const token = new URL(link).searchParams.get('token')!;
    for (const secret of [token, smtp.password, 'hanna-password-2', 'hanna@example.com']) expect(server.logText()).not.toContain(secret);
  });

  it('answers an unknown name or address and a user without e-mail in the same words, and mails nobody', async () => {
    const count = smtp.received.length;
    const known = await requestLink(new Browser(server.url), 'jo');
    await smtp.next('jo@example.com');
    for (const identifier of ['nobody@example.com', 'nobody', 'ivo']) {
      const answer = await requestLink(new Browser(server.url), identifier);
      expect(answer.status).toBe(200);
      expect(answer.html).toBe(known.html);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.received.length).toBe(count + 1);
  });

  it('refuses an expired link', async () => {
    const arriving = smtp.next('jo@example.com');
    await requestLink(new Browser(server.url), 'jo@example.com');
    const link = linkIn((await arriving).text);
    clock.advance(31 * 60);
    const page = await new Browser(server.url).get(link);
    expect(page.status).toBe(400);
    expect(page.html).toContain('<h1>Link not usable</h1>');
    expect(await new Browser(server.url).get(`${server.url}/account/password-reset?token=not-a-token`)).toMatchObject({ status: 400 });
  });

  it('mails an account at most three links an hour, silently; an address asking too often is told to wait', async () => {
    const throttled = await startServer(await signInConfig({
      smtp: { host: '127.0.0.1', port: smtp.port, auth: { user: smtp.user, password: smtp.password }, from: 'no-reply@example.com', caFile: smtp.caFile },
    }));
    try {
      await addUser(throttled, 'kai', 'kai@example.com', 'kai-password-1');
      const ask = async (identifier: string) => {
        const browser = new Browser(throttled.url);
        return browser.submit(await browser.get(`${throttled.url}/account/password-reset`), { identifier });
      };
      const before = smtp.received.filter((m) => m.to.includes('kai@example.com')).length;
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await ask('kai'));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      await expect.poll(() => smtp.received.filter((m) => m.to.includes('kai@example.com')).length - before).toBe(3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(smtp.received.filter((m) => m.to.includes('kai@example.com')).length - before).toBe(3);
      for (let i = 0; i < 6; i++) await ask('nobody');
      const over = await ask('nobody');
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(over.html).toContain('Too many reset links were asked for from your network.');
    } finally {
      await throttled.close();
    }
  });

  it('speaks German, mail included', async () => {
    const browser = new Browser(server.url);
    const form = await browser.get(`${server.url}/account/password-reset?ui_locales=de`);
    expect(form.html).toContain('<h1>Passwort zurücksetzen</h1>');
    const arriving = smtp.next('jo@example.com');
    const answer = await browser.submit(form, { identifier: 'jo' });
    expect(answer.html).toContain('<h1>Sehen Sie in Ihre E-Mails</h1>');
    const mail = await arriving;
    expect(mail.text).toContain('Jemand möchte das Passwort des Kontos „jo“ zurücksetzen.');
  });
});
