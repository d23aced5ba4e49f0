/**
 * Every state-changing POST of the verification page carries the CSRF token of its session
 * (issue 6): without it, no step has any effect — no sign-in, no approval, no denial, no
 * sign-out — and the answer is a plain 403 page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { alice, codesFor, deviceConfig, hiddenFields, PageClient, poll, type Codes } from '../device/helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await deviceConfig());
});
afterAll(() => server.close());

const refused = 'This form has expired or did not come from this page.';

/** A browser signed in as alice, on the consent page for `codes`. */
async function atConsent(codes: Codes) {
  const page = new PageClient(server.url);
  const signIn = await page.submit(await page.get(codes.verification_uri_complete), { user_code: codes.user_code });
  const consent = await page.submit(signIn, { username: alice.username, password: alice.password });
  expect(consent.html).toContain('<h1>Allow access?</h1>');
  return { page, consent };
}

/** The hidden fields of form `index` on a page, without the CSRF token. */
function withoutCsrf(html: string, index = 0): Record<string, string> {
  const { csrf, ...rest } = hiddenFields(html)[index]!;
  expect(csrf, 'the form carries a CSRF token').toEqual(expect.any(String));
  return rest;
}

describe('a POST without the CSRF token', () => {
  it('does not sign in', async () => {
    const codes = await codesFor(server);
    const page = new PageClient(server.url);
    const signIn = await page.submit(await page.get(codes.verification_uri_complete), { user_code: codes.user_code });
    const res = await page.post({ ...withoutCsrf(signIn.html), username: alice.username, password: alice.password });
    expect(res.status).toBe(403);
    expect(res.html).toContain(refused);
    // Still anonymous: the code leads to the sign-in form, not to consent.
    const again = await page.submit(await page.get('/device'), { user_code: codes.user_code });
    expect(again.html).toContain('<h1>Sign in</h1>');
  });

  it.each(['approve', 'deny'])('does not %s', async (decision) => {
    const codes = await codesFor(server);
    const { page, consent } = await atConsent(codes);
    const res = await page.post({ ...withoutCsrf(consent.html), decision });
    expect(res.status).toBe(403);
    expect(res.html).toContain(refused);
    const polled = await poll(server, codes.device_code);
    expect(polled.body.error).toBe('authorization_pending');
  });

  it('does not sign out', async () => {
    const codes = await codesFor(server);
    const { page, consent } = await atConsent(codes);
    const res = await page.post(withoutCsrf(consent.html, 1));
    expect(res.status).toBe(403);
    // Still signed in: the code goes straight to consent.
    const again = await page.submit(await page.get('/device'), { user_code: codes.user_code });
    expect(again.html).toContain('<h1>Allow access?</h1>');
  });
});
