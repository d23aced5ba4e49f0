/**
 * GET/POST /device, the verification page, over plain HTTP: steps, code matching, messages,
 * cookies, CSRF, escaping, and that nothing secret reaches the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { alice, bob, codesFor, deviceClients, deviceConfig, hiddenFields, manualClock, PageClient, poll, type Codes } from '../device/helpers.js';

const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
let server: TestServer;

beforeAll(async () => {
  const config = await deviceConfig({
    // This file types wrong codes on purpose; the rate limit has its own tests.
    deviceFlow: { maxFailedAttempts: 1000 },
    clients: [...deviceClients, { clientId: 'evil', clientName: '<img src=x onerror=alert(1)> & "Co"', requireClientSecret: false, allowedGrantTypes: ['urn:ietf:params:oauth:grant-type:device_code'], allowedScopes: ['api1.read'] }],
  });
  server = await startServer(config, { clock });
});
afterAll(() => server.close());

/** Opens the page, enters `typed`, returns the client and the answer. */
async function enterCode(typed: string) {
  const page = new PageClient(server.url);
  const entry = await page.get('/device');
  return { page, res: await page.submit(entry, { user_code: typed }) };
}

async function toConsent(codes: Codes, user: { username: string; password: string } = alice) {
  const page = new PageClient(server.url);
  const entry = await page.get(codes.verification_uri_complete);
  const signIn = await page.submit(entry, { user_code: codes.user_code });
  const consent = await page.submit(signIn, { username: user.username, password: user.password });
  return { page, signIn, consent };
}

describe('the page itself', () => {
  it('is server-rendered HTML for phones with labelled fields, not cacheable and not frameable', async () => {
    const res = await new PageClient(server.url).get('/device');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(res.html).toContain('<label for="user_code">Code</label>');
    expect(res.html).toMatch(/<input class="code-input" type="text" id="user_code" name="user_code" value=""/);
    expect(res.html).not.toContain('<script');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'; frame-ancestors 'none'/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('prefills the code from verification_uri_complete, normalized for display', async () => {
    const codes = await codesFor(server);
    const lower = codes.user_code.toLowerCase().replace('-', '');
    const res = await new PageClient(server.url).get(`/device?user_code=${lower}`);
    expect(res.html).toContain(`name="user_code" value="${codes.user_code}"`);
  });

  it('sets the browser cookie every page shares: HttpOnly, SameSite=Lax, Path=/, not Secure over http', async () => {
    const res = await new PageClient(server.url).get('/device');
    const [cookie, ...others] = res.headers.getSetCookie();
    expect(others).toEqual([]);
    expect(cookie).toMatch(/^svc_session=[\w-]+\.[\w-]+; Max-Age=36000; Path=\/; HttpOnly; SameSite=Lax$/);
  });
});

describe('entering the code', () => {
  it('matches case-insensitively, ignoring dashes and spaces', async () => {
    for (const variant of [(c: string) => c, (c: string) => c.toLowerCase(), (c: string) => c.replace('-', ''), (c: string) => ` ${c.replace('-', ' ').toLowerCase()} `]) {
      const codes = await codesFor(server);
      const { res } = await enterCode(variant(codes.user_code));
      expect(res.status).toBe(200);
      expect(res.html).toContain('<h1>Sign in</h1>');
      expect(res.html).toContain('<strong>Living room TV</strong> wants to connect');
    }
  });

  it('says plainly when a code is unknown, and echoes what was typed escaped', async () => {
    const { res } = await enterCode('<b>BCDF</b>');
    expect(res.status).toBe(400);
    expect(res.html).toContain('That code is not valid. Check the code shown on your device and try again.');
    expect(res.html).toContain('value="&lt;b&gt;BCDF&lt;/b&gt;"');
    expect(res.html).not.toContain('<b>BCDF');
  });

  it('says plainly when a code has expired', async () => {
    const codes = await codesFor(server);
    clock.advance(300);
    const { res } = await enterCode(codes.user_code);
    expect(res.status).toBe(400);
    expect(res.html).toContain('That code has expired. Start again on your device to get a new code.');
  });

  it('says plainly when a code was already used', async () => {
    const codes = await codesFor(server);
    const { page, consent } = await toConsent(codes);
    await page.submit(consent, { decision: 'approve' });
    const { res } = await enterCode(codes.user_code);
    expect(res.status).toBe(400);
    expect(res.html).toContain('That code has already been used.');
    expect(res.html).not.toMatch(/at \w+ \(|Error:/);
  });

  it('asks for the code when the field is empty', async () => {
    const { res } = await enterCode('');
    expect(res.status).toBe(400);
    expect(res.html).toContain('Enter the code shown on your device.');
  });
});

describe('signing in and deciding', () => {
  it('rejects a wrong password with a plain message and keeps the username', async () => {
    const codes = await codesFor(server);
    const page = new PageClient(server.url);
    const entry = await page.get(codes.verification_uri_complete);
    const signIn = await page.submit(entry, { user_code: codes.user_code });
    const res = await page.submit(signIn, { username: 'alice', password: 'wrong' });
    expect(res.status).toBe(400);
    expect(res.html).toContain('The username or password is incorrect.');
    expect(res.html).toContain('name="username" value="alice"');
    expect(res.html).not.toContain('value="wrong"');
  });

  it('shows the client, the code to compare and each scope with its description', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'openid profile offline_access api1.read' });
    const { consent } = await toConsent(codes);
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('<strong>Living room TV</strong> is asking for access to your account.');
    expect(consent.html).toContain(`<span class="code">${codes.user_code}</span>`);
    expect(consent.html).toContain('<li>Your name<span class="scope-name">profile</span></li>');
    expect(consent.html).toContain('<li>Read your data in API 1<span class="scope-name">api1.read</span></li>');
    expect(consent.html).toContain('<span class="scope-name">openid</span>');
    expect(consent.html).toContain('<span class="scope-name">offline_access</span>');
    expect(consent.html).toContain('<button type="submit" name="decision" value="approve">Approve</button>');
    expect(consent.html).toContain('Signed in as <strong>alice</strong>');
  });

  it('escapes a client name full of markup', async () => {
    const codes = await codesFor(server, { client_id: 'evil' });
    const { res } = await enterCode(codes.user_code);
    expect(res.html).toContain('<strong>&lt;img src=x onerror=alert(1)&gt; &amp; &quot;Co&quot;</strong>');
    expect(res.html).not.toContain('<img');
  });

  it('remembers the sign-in: a second code goes straight to consent', async () => {
    const first = await codesFor(server);
    const { page } = await toConsent(first);
    const second = await codesFor(server);
    const entry = await page.get(second.verification_uri_complete);
    const consent = await page.submit(entry, { user_code: second.user_code });
    expect(consent.html).toContain('<h1>Allow access?</h1>');
    expect(consent.html).toContain(`<span class="code">${second.user_code}</span>`);
  });

  it('signs out', async () => {
    const codes = await codesFor(server);
    const { page, consent } = await toConsent(codes);
    const out = await page.submit(consent, {}, 1);
    expect(out.html).toContain('<h1>Connect a device</h1>');
    const again = await page.submit(out, { user_code: codes.user_code });
    expect(again.html).toContain('<h1>Sign in</h1>');
  });

  it('approves as the signed-in user: the poller gets that user’s token', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'api1.read' });
    const { page, consent } = await toConsent(codes, bob);
    const done = await page.submit(consent, { decision: 'approve' });
    expect(done.status).toBe(200);
    expect(done.html).toContain('<h1>Device connected</h1>');
    const res = await poll(server, codes.device_code);
    expect(res.status).toBe(200);
  });

  it('lets only one decision win when two people answer the same code', async () => {
    const codes = await codesFor(server);
    const a = await toConsent(codes, alice);
    const b = await toConsent(codes, bob);
    const [approve, deny] = await Promise.all([a.page.submit(a.consent, { decision: 'approve' }), b.page.submit(b.consent, { decision: 'deny' })]);
    const winners = [approve, deny].filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    const loser = [approve, deny].find((r) => r.status !== 200)!;
    expect(loser.html).toContain('That code has already been used.');
  });

  it('needs a signed-in session to decide', async () => {
    const codes = await codesFor(server);
    const page = new PageClient(server.url);
    const entry = await page.get('/device');
    const [fields] = hiddenFields(entry.html);
    const res = await page.post({ step: 'consent', csrf: fields!.csrf!, user_code: codes.user_code, decision: 'approve' });
    expect(res.status).toBe(401);
    expect(res.html).toContain('Sign in to continue.');
    expect((await poll(server, codes.device_code)).body.error).toBe('authorization_pending');
  });
});

describe('CSRF', () => {
  it('rejects a POST without the CSRF token: 403 and a plain page', async () => {
    const codes = await codesFor(server);
    const page = new PageClient(server.url);
    await page.get('/device');
    const res = await page.post({ step: 'code', user_code: codes.user_code });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.html).toContain('This form has expired or did not come from this page.');
  });

  it('rejects a POST with no session cookie, or a token from another session', async () => {
    const codes = await codesFor(server);
    const mine = new PageClient(server.url);
    const [fields] = hiddenFields((await mine.get('/device')).html);
    const cookieless = new PageClient(server.url);
    expect((await cookieless.post({ ...fields, user_code: codes.user_code })).status).toBe(403);
    const other = new PageClient(server.url);
    await other.get('/device');
    expect((await other.post({ ...fields, user_code: codes.user_code })).status).toBe(403);
    expect((await mine.post({ ...fields, user_code: codes.user_code })).status).toBe(200);
  });

  it('rejects a tampered cookie: another browser id under this one\'s signature', async () => {
    const codes = await codesFor(server);
    const signedIn = (await toConsent(codes)).page;
    const page = new PageClient(server.url);
    const [fields] = hiddenFields((await page.get('/device')).html);
    const [, mac] = page.cookies.get('svc_session')!.split('.');
    const [otherId] = signedIn.cookies.get('svc_session')!.split('.');
    page.cookies.set('svc_session', `${otherId}.${mac}`);
    expect((await page.post({ ...fields, user_code: codes.user_code })).status).toBe(403);
  });

  it('does not accept a token from before sign-in after it (the session id changes)', async () => {
    const codes = await codesFor(server);
    const { page, signIn } = await toConsent(codes);
    const [before] = hiddenFields(signIn.html);
    const res = await page.post({ step: 'consent', csrf: before!.csrf!, user_code: codes.user_code, decision: 'approve' });
    expect(res.status).toBe(403);
    expect((await poll(server, codes.device_code)).body.error).toBe('authorization_pending');
  });
});

describe('errors', () => {
  it('answers a malformed form with a plain page, not JSON or a stack trace', async () => {
    const res = await fetch(`${server.url}/device`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'step=code&step=code',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain('The form could not be read.');
  });
});

describe('logs', () => {
  it('never contain a device code, user code, password, session cookie or CSRF token', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'openid api1.read' });
    const { page, consent } = await toConsent(codes);
    const [fields] = hiddenFields(consent.html);
    await page.submit(consent, { decision: 'approve' });
    await poll(server, codes.device_code);
    await poll(server, codes.device_code);
    const text = server.logText();
    expect(text).toContain('device authorization decided');
    for (const secret of [codes.device_code, codes.user_code, codes.user_code.replace('-', ''), alice.password, page.cookies.get('svc_session')!, fields!.csrf!]) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('with an https issuer', () => {
  it('marks the cookie Secure', async () => {
    const https = await startServer({ ...(await deviceConfig()), issuer: 'https://login.example.com' });
    try {
      const res = await new PageClient(https.url).get('/device');
      expect(res.headers.getSetCookie()[0]).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
      const codes = await codesFor(https);
      expect(codes.verification_uri).toBe('https://login.example.com/device');
    } finally {
      await https.close();
    }
  });
});

describe('numeric user codes', () => {
  it('issues 9 digits shown as 123-456-789, matched without dashes or with spaces', async () => {
    const numeric = await startServer(await deviceConfig({ deviceFlow: { userCodeFormat: 'numeric' } }));
    try {
      const codes = await codesFor(numeric);
      expect(codes.user_code).toMatch(/^\d{3}-\d{3}-\d{3}$/);
      const page = new PageClient(numeric.url);
      const entry = await page.get('/device');
      expect(entry.html).toContain('inputmode="numeric"');
      const res = await page.submit(entry, { user_code: codes.user_code.replaceAll('-', ' ') });
      expect(res.html).toContain('<h1>Sign in</h1>');
      const bare = await page.submit(entry, { user_code: codes.user_code.replaceAll('-', '') });
      expect(bare.html).toContain('<h1>Sign in</h1>');
    } finally {
      await numeric.close();
    }
  });
});
