/**
 * The end-session step on plain values (RP-Initiated Logout 1.0 §2, §4, §6): only an ID token of
 * this very session (its `sid`, and an audience that received a code in it) signs out without
 * asking; a hint that fails validation never redirects.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEndSession } from '../../src/authorize/end-session.js';
import type { IdTokenHint } from '../../src/authorize/id-token-hint.js';
import type { Client, ResolvedConfig } from '../../src/config/schema.js';
import type { Logger } from '../../src/sdk/contracts.js';
import { createCsrf } from '../../src/pages/csrf.js';
import { createSignInSessions } from '../../src/sessions/sign-in-sessions.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

const signedOutUri = 'https://web.example.com/signed-out';
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
const client = (clientId: string): Client => ({ clientId, postLogoutRedirectUris: [signedOutUri] }) as unknown as Client;

async function setup() {
  const clock = { now: () => Date.now() };
  const store = createMemoryStore(clock);
  const sessions = createSignInSessions({ store, clock, lifetimeSeconds: 3600 });
  const session = await sessions.start('browser-1', 'alice');
  await sessions.codeIssued('browser-1', 'web', 'family-1');
  // The hint is "the token"; the reader answers what a valid or invalid one would carry.
  const hints = new Map<string, IdTokenHint>();
  const endSession = createEndSession({
    config: { clients: [] } as unknown as ResolvedConfig,
    clients: new Map([['web', client('web')], ['other', client('other')]]),
    sessions, csrf: createCsrf(randomBytes(32)), logger: quiet,
    readHint: async (token) => hints.get(token),
  });
  /** `null`: a browser without the cookie. */
  const request = (params: Record<string, string>, browserId: string | null = 'browser-1') =>
    endSession(new Map(Object.entries(params)), { browserId: browserId ?? undefined, remoteAddress: '127.0.0.1' }, 'GET');
  const stillSignedIn = async () => (await sessions.get('browser-1')) !== undefined;
  return { session, hints, request, stillSignedIn };
}

describe('end session: which hint signs out without asking', () => {
  it('an ID token of this session (same sid, an audience that got a code here) signs out at once and redirects', async () => {
    const { session, hints, request, stillSignedIn } = await setup();
    hints.set('this-session', { sub: 'alice', clientId: 'web', sid: session.sid });
    const outcome = await request({ id_token_hint: 'this-session', post_logout_redirect_uri: signedOutUri, state: 's' });
    expect(outcome.response).toEqual({ kind: 'redirect', location: `${signedOutUri}?state=s` });
    expect(outcome.clearCookie).toBe(true);
    expect(await stillSignedIn()).toBe(false);
  });

  it.each([
    ['another session of the same user (other sid)', { sub: 'alice', clientId: 'web', sid: 'another-sid' }],
    ['an ID token without sid', { sub: 'alice', clientId: 'web', sid: undefined }],
    ['this sid but a client that got no code in this session (other aud)', { sub: 'alice', clientId: 'other', sid: 'SESSION' }],
    ['this sid but another subject', { sub: 'bob', clientId: 'web', sid: 'SESSION' }],
  ])('%s: asks first and signs nobody out', async (_, given) => {
    const { session, hints, request, stillSignedIn } = await setup();
    hints.set('hint', { ...given, sid: given.sid === 'SESSION' ? session.sid : given.sid });
    const outcome = await request({ id_token_hint: 'hint', post_logout_redirect_uri: signedOutUri });
    expect(outcome.status).toBe(200);
    expect(outcome.view?.kind).toBe('logout');
    expect(outcome.response).toBeUndefined();
    expect(outcome.clearCookie).toBeUndefined();
    expect(await stillSignedIn()).toBe(true);
  });
});

describe('end session: a hint that fails validation never redirects', () => {
  it('without a session, even with a client_id and a registered post_logout_redirect_uri: a 400 page', async () => {
    const { request } = await setup();
    const outcome = await request({ id_token_hint: 'forged', client_id: 'web', post_logout_redirect_uri: signedOutUri, state: 's' }, null);
    expect(outcome).toMatchObject({ status: 400, view: { kind: 'message', message: 'sign-out-invalid' } });
    expect(outcome.response).toBeUndefined();
  });

  it('with a session: asks first, and its form may not go to the client (no redirect target)', async () => {
    const { request, stillSignedIn } = await setup();
    const outcome = await request({ id_token_hint: 'forged', client_id: 'web', post_logout_redirect_uri: signedOutUri });
    expect(outcome.view?.kind).toBe('logout');
    expect(outcome.redirectUri).toBeUndefined();
    expect(await stillSignedIn()).toBe(true);
  });

  it('without a hint, a client_id with its registered URI still redirects when nobody is signed in (§3)', async () => {
    const { request } = await setup();
    const outcome = await request({ client_id: 'web', post_logout_redirect_uri: signedOutUri }, null);
    expect(outcome.response).toEqual({ kind: 'redirect', location: signedOutUri });
  });
});
