/**
 * Signing in with the form, with plain values: the page a sign-in step shows, and its POST:
 * missing or wrong credentials shown again (a plugin's own words when it gave some), the password
 * throttle's 429 with Retry-After, and a right password handed to `signedIn` with the subject.
 */
import { describe, expect, it } from 'vitest';
import { createSignInForm, type SignInCheck } from '../../../src/authorize/steps/sign-in-form.js';
import type { SignedIn } from '../../../src/authorize/steps/signed-in.js';
import { createThrottledSignIn } from '../../../src/throttling/throttled-sign-in.js';
import { createPasswordThrottle } from '../../../src/throttling/password-throttle.js';
import { clock, pageForm, pageParts, request, state } from './fakes.js';

const ctx = { browserId: 'b1', remoteAddress: '10.0.0.7', requestId: 'req-1' };

function setup(authenticate?: SignInCheck) {
  const parts = pageParts();
  parts.interactions.stored.set('i1', { request: request({ uiLocales: 'de' }) });
  const signedInAs: string[] = [];
  const signedIn: SignedIn = async (subject, _ctx, id, _interaction, via) => (signedInAs.push(`${subject} ${id} ${via}`), { status: 299 });
  const form = createSignInForm({
    users: { validate: async (u, p) => (u === 'alice' && p === 'correct horse' ? { subjectId: 'alice-sub', username: 'alice', claims: {} } : undefined) },
    authenticate,
    throttle: createThrottledSignIn({ passwordThrottle: createPasswordThrottle({ pairThreshold: 2, userThreshold: 10, addressThreshold: 50, maxDelay: 60, window: 900 }), clock }),
    ...parts, signedIn,
  });
  const post = (fields: Record<string, string>) => form.submit(pageForm('i1', 'b1', fields), ctx);
  return { form, post, signedInAs };
}

describe('the sign-in form', () => {
  it("shows the page for the interaction, with the client's name, the login hint and a CSRF token of this browser", async () => {
    const outcome = await setup().form.start(state({ request: request({ loginHint: 'alice', uiLocales: 'fr' }) }), 'i1', 'b1');
    expect(outcome).toEqual({
      status: 200, redirectUri: 'https://web.example/cb', uiLocales: 'fr',
      view: { kind: 'sign-in', interaction: 'i1', csrf: pageForm('i1', 'b1').get('csrf'), clientId: 'web', clientName: 'Web shop', username: 'alice' },
    });
  });

  it('asks again for missing credentials, without checking anything', async () => {
    expect(await setup().post({ username: 'alice' })).toMatchObject({ status: 200, uiLocales: 'de', view: { kind: 'sign-in', notice: 'credentials-missing', username: 'alice' } });
  });

  it('says the credentials are wrong, then answers 429 with Retry-After once the throttle holds the pair', async () => {
    const { post, signedInAs } = setup();
    expect(await post({ username: 'alice', password: 'guess-1' })).toMatchObject({ status: 200, view: { notice: 'credentials-wrong' } });
    await post({ username: 'alice', password: 'guess-2' });
    const held = await post({ username: 'alice', password: 'correct horse' });
    expect(held).toMatchObject({ status: 429, view: { notice: 'too-many-sign-ins' }, headers: { 'Retry-After': expect.stringMatching(/^\d+$/) } });
    expect(signedInAs).toEqual([]);
  });

  it('signs the person in with the right password', async () => {
    const { post, signedInAs } = setup();
    expect(await post({ username: 'alice', password: 'correct horse' })).toEqual({ status: 299 });
    expect(signedInAs).toEqual(['alice-sub i1 sign_in_page']);
  });

  it("shows a plugin check's own words for a refusal, and lets its subject in", async () => {
    const { post, signedInAs } = setup(async (form) => (form.get('otp') === '123456' ? { subject: 'otp-user' } : { message: 'That code has expired.' }));
    expect(await post({ otp: '000000' })).toMatchObject({ view: { message: 'That code has expired.' } });
    await post({ otp: '123456' });
    expect(signedInAs).toEqual(['otp-user i1 sign_in_page']);
  });
});
