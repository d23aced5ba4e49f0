/**
 * The session cookie against cookie tossing (RFC 6265bis §4.1.3.2): a request carrying two
 * session cookies is refused on every page, never answered for the first one; an https issuer
 * names its cookie `__Host-svc_session` and, during the transition, still reads the old
 * `svc_session` once, setting it again under the new name.
 */
import { request } from 'node:https';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserCookies } from '../../src/pages/browser-cookie.js';
import { createSignInSessions } from '../../src/sessions/sign-in-sessions.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { issue, makeCa } from '../support/certificates.js';
import { freePort, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, bob, Browser, signInAndAuthorize, signInConfig, webRequest } from '../support/sign-in.js';

const conflictText = 'Your browser sent more than one sign-in cookie for this site';

describe('two session cookies (http issuer)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(await signInConfig());
  });
  afterAll(() => server.close());

  /** A browser signed in as `user`; its cookie, `svc_session=<id>.<mac>`. */
  async function signedInAs(user: { username: string; password: string }): Promise<{ browser: Browser; cookie: string }> {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params, user);
    return { browser, cookie: `svc_session=${browser.cookies.get('svc_session')!}` };
  }
  const withCookies = (cookie: string, url: string) => fetch(new URL(url, server.url), { headers: { cookie }, redirect: 'manual' });

  it('is refused on the authorization endpoint, the logout and the device page: a 400 page, no redirect, no cookie set or cleared', async () => {
    const victim = await signedInAs(alice);
    const attacker = await signedInAs(bob);
    // What the browser sends when a sibling planted the attacker's cookie with a longer path: that one first.
    const both = `${attacker.cookie}; ${victim.cookie}`;
    for (const url of [authorizeUrl(server, webRequest({ prompt: 'none' }).params), '/connect/endsession', '/device']) {
      const res = await withCookies(both, url);
      expect(res.status, url).toBe(400);
      expect(res.headers.get('location'), url).toBeNull();
      expect(res.headers.getSetCookie(), url).toEqual([]);
      expect(await res.text(), url).toContain(conflictText);
    }
    // Nobody was signed out: each cookie alone still gets a code for its own user.
    const promptNone = async (browser: Browser) => (await browser.get(authorizeUrl(server, webRequest({ prompt: 'none' }).params))).location!.searchParams;
    expect((await promptNone(victim.browser)).has('code')).toBe(true);
    expect((await promptNone(attacker.browser)).has('code')).toBe(true);
    expect(server.logText()).toContain('more than one session cookie (cookie tossing?); refused');
    expect(server.logText()).not.toContain(victim.cookie.split('=')[1]!);
  });
});

describe('https issuer: __Host-svc_session, and the old name during the transition', () => {
  const cookieSecret = 'a cookie secret for the session cookie test, 32+ chars';
  const store = createMemoryStore();
  let server: TestServer;
  let ca: string;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-session-cookie-'));
    const serverCa = await makeCa('CN=Test Server CA');
    const cert = await issue(serverCa, 'CN=127.0.0.1', { serverNames: ['127.0.0.1'] });
    writeFileSync(join(dir, 'server.pem'), cert.certificatePem);
    writeFileSync(join(dir, 'server.key'), cert.keyPem, { mode: 0o600 });
    ca = serverCa.certificatePem;
    const port = await freePort();
    server = await startServer(await signInConfig({
      port, issuer: `https://127.0.0.1:${port}`,
      tls: { certificate: join(dir, 'server.pem'), key: join(dir, 'server.key') },
      deviceFlow: { cookieSecret },
    }), { store });
  });
  afterAll(() => server?.close());

  function get(url: string, cookie: string): Promise<{ status: number; location: URL | undefined; setCookie: string[] }> {
    return new Promise((resolve, reject) => {
      request(url, { agent: false, ca, headers: { cookie } }, (res) => {
        res.resume();
        res.on('end', () => resolve({
          status: res.statusCode ?? 0,
          location: res.headers.location ? new URL(res.headers.location) : undefined,
          setCookie: res.headers['set-cookie'] ?? [],
        }));
      }).on('error', reject).end();
    });
  }

  /** A session for alice in the store, and its cookie values under the old and the new name. */
  async function sessionOfAlice() {
    const secret = Buffer.from(cookieSecret, 'utf8');
    const before = createBrowserCookies({ secret, secure: false, path: '/' });
    const now = createBrowserCookies({ secret, secure: true, path: '/' });
    const id = before.newId();
    await createSignInSessions({ store, clock: { now: () => Date.now() }, lifetimeSeconds: 3600 }).start(id, alice.subjectId);
    const valueOf = (line: string) => line.split(';')[0]!;
    return { oldCookie: valueOf(before.serialize(id, 60)), newCookie: valueOf(now.serialize(id, 60)), newValue: valueOf(now.serialize(id, 60)).split('=')[1]! };
  }

  it('the sign-in page sets __Host-svc_session: Secure, Path=/, no Domain', async () => {
    const { setCookie } = await get(authorizeUrl(server, webRequest().params), '');
    expect(setCookie).toHaveLength(1);
    expect(setCookie[0]).toMatch(/^__Host-svc_session=[\w-]+\.[\w-]+; Max-Age=36000; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
  });

  it('the old svc_session alone is read once: the code is issued, the cookie set again under the new name, the old one cleared', async () => {
    const { oldCookie, newCookie } = await sessionOfAlice();
    const res = await get(authorizeUrl(server, webRequest({ prompt: 'none' }).params), oldCookie);
    expect(res.status).toBe(303);
    expect(res.location!.searchParams.has('code')).toBe(true);
    expect(res.setCookie).toEqual([
      `${newCookie}; Max-Age=36000; Path=/; HttpOnly; SameSite=Lax; Secure`,
      'svc_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure',
    ]);
    // The new cookie alone: no cookie line at all.
    expect((await get(authorizeUrl(server, webRequest({ prompt: 'none' }).params), newCookie)).setCookie).toEqual([]);
  });

  it('a value issued under the new name and planted under the old one signs nobody in', async () => {
    const { newValue } = await sessionOfAlice();
    const res = await get(authorizeUrl(server, webRequest({ prompt: 'none' }).params), `svc_session=${newValue}`);
    expect(res.location!.searchParams.get('error')).toBe('login_required');
  });
});
