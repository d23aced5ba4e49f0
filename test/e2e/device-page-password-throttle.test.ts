/**
 * Wrong passwords on the device page count with the password grant's (issue 14, "failed
 * passwords per user"): the page is no side door for guessing a user's password, an unknown
 * username is answered exactly like a known one, and a block earned at one door holds at the
 * other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { alice, codesFor, deviceClients, deviceConfig, manualClock, PageClient, type PageResponse } from '../device/helpers.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';

const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
let server: TestServer;

beforeAll(async () => {
  server = await startServer(
    await deviceConfig({
      clients: [
        ...deviceClients,
        { clientId: 'web', clientSecrets: [{ value: hashSecret('web-secret') }], allowedGrantTypes: ['password'], allowedScopes: ['api1.read'] },
      ],
      passwordThrottle: { pairThreshold: 2, userThreshold: 20, addressThreshold: 50, maxDelay: 300, window: 900 },
    }),
    { clock },
  );
});
afterAll(() => server.close());

/** The sign-in step of a fresh device flow. */
async function signInPage(): Promise<{ page: PageClient; signIn: PageResponse }> {
  const codes = await codesFor(server);
  const page = new PageClient(server.url);
  const entry = await page.get(codes.verification_uri_complete);
  return { page, signIn: await page.submit(entry, { user_code: codes.user_code }) };
}

async function tryPassword(username: string, password: string): Promise<PageResponse> {
  const { page, signIn } = await signInPage();
  return page.submit(signIn, { username, password });
}

const passwordGrant = (username: string, password: string) =>
  postForm(`${server.url}/connect/token`, { grant_type: 'password', username, password, scope: 'api1.read' }, { authorization: basic('web', 'web-secret') });

/** What a person sees: the status, the wait and the message. */
const seen = (res: PageResponse) => ({
  status: res.status,
  retryAfter: res.headers.get('retry-after'),
  message: /<p[^>]*>([^<]*(?:incorrect|Too many)[^<]*)<\/p>/.exec(res.html)?.[1],
});
const wrong = { status: 400, retryAfter: null, message: 'The username or password is incorrect.' };
const throttled = { status: 429, retryAfter: '1', message: 'Too many failed sign-ins for this account or from your network. Try again in 1 minute (after 00:00 UTC).' };

describe('wrong passwords on the device page', () => {
  it('are throttled per user and address like the password grant, the right password included', async () => {
    expect(seen(await tryPassword('alice', 'guess-1'))).toEqual(wrong);
    expect(seen(await tryPassword('alice', 'guess-2'))).toEqual(wrong);
    expect(seen(await tryPassword('alice', alice.password))).toEqual(throttled);
  });

  it('answer an unknown username exactly the same', async () => {
    expect(seen(await tryPassword('nobody', 'guess-1'))).toEqual(wrong);
    expect(seen(await tryPassword('nobody', 'guess-2'))).toEqual(wrong);
    expect(seen(await tryPassword('nobody', alice.password))).toEqual(throttled);
  });

  it('hold at the token endpoint too: the page and the grant count as one', async () => {
    const res = await passwordGrant('alice', alice.password);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: 'temporarily_unavailable', error_description: 'Too many failed sign-ins; retry after 1 seconds.' });
  });

  it('and failures at the token endpoint hold on the page', async () => {
    clock.advance(3600);
    for (const guess of ['g1', 'g2']) expect((await passwordGrant('bob', guess)).status).toBe(400);
    expect(seen(await tryPassword('bob', 'bob-password-1'))).toMatchObject({ status: 429, message: throttled.message.replace('00:00', '01:00') });
  });

  it('a successful sign-in clears the count', async () => {
    clock.advance(3600);
    expect(seen(await tryPassword('alice', 'guess-3'))).toEqual(wrong);
    const ok = await tryPassword('alice', alice.password);
    expect(ok.status).toBe(200);
    expect(ok.html).toContain('name="decision" value="approve"');
    expect(seen(await tryPassword('alice', 'guess-4'))).toEqual(wrong);
  });
});
