/**
 * The authorize flow's steps with plain values (RFC 6749 §4.1, OIDC Core §3.1.2): the request
 * checks, the sign-in step (no session, `prompt=login`, `max_age`), the consent step, the
 * `prompt=none` errors and the code. Real sessions, interactions, codes, CSRF and throttle on a
 * memory store and a manual clock; built as in authorize-flow-client-gone.test.ts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createAuthorizationCodes, type AuthorizationCodes } from '../../src/authorize/authorization-codes.js';
import { createRequestValidator } from '../../src/authorize/authorization-request.js';
import { createAuthorizeFlow, type AuthorizeFlow, type BrowserContext, type FlowOutcome } from '../../src/authorize/authorize-flow.js';
import { createInteractions } from '../../src/authorize/interactions.js';
import { createPushedRequests } from '../../src/authorize/pushed-requests.js';
import { resolveConfig } from '../../src/config/resolve.js';
import type { Client } from '../../src/config/schema.js';
import { createEventService } from '../../src/events/event-service.js';
import { createPasswordThrottle } from '../../src/throttling/password-throttle.js';
import { createCsrf } from '../../src/pages/csrf.js';
import { createSignInSessions, type SignInSessions } from '../../src/sessions/sign-in-sessions.js';
import type { Logger, RaisedEvent, ResourceOwner } from '../../src/sdk/index.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { ManualClock } from '../device/helpers.js';

const ISSUER = 'https://issuer.example';
const START = Date.UTC(2030, 0, 1, 12, 0, 0);
const config = resolveConfig({
  issuer: ISSUER,
  identityResources: [{ name: 'openid', claims: ['sub'] }, { name: 'profile', claims: ['name'] }],
  apiScopes: [{ name: 'api.read', description: 'Read your orders' }],
  clients: [
    // First party: no consent page.
    { clientId: 'web', clientName: 'Web shop', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile', 'api.read'], redirectUris: ['https://web.example/cb'], requirePkce: false },
    { clientId: 'partner', clientName: 'Partner app', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile', 'api.read'], redirectUris: ['https://partner.example/cb'], requirePkce: false, requireConsent: true },
  ],
}, '/');
const alice: ResourceOwner = { subjectId: 'alice-sub', username: 'alice', claims: {} };

let clock: ManualClock;
let sessions: SignInSessions;
let codes: AuthorizationCodes;
let events: RaisedEvent[];
let flow: AuthorizeFlow;
let browserIds: number;
const hints = new Map([
  ['alice-for-web', { sub: 'alice-sub', clientId: 'web', sid: undefined }],
  ['bob-for-web', { sub: 'bob-sub', clientId: 'web', sid: undefined }],
  ['alice-for-partner', { sub: 'alice-sub', clientId: 'partner', sid: undefined }],
]);

beforeEach(() => {
  let now = START;
  clock = { now: () => now, advance: (seconds) => void (now += seconds * 1000) };
  const store = createMemoryStore(clock);
  const clients = new Map<string, Client>(config.clients.map((c) => [c.clientId, c]));
  const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
  sessions = createSignInSessions({ store, clock, lifetimeSeconds: 3600 });
  codes = createAuthorizationCodes({ store, clock });
  events = [];
  const eventService = createEventService(silent, clock.now);
  eventService.attach([{ handle: (e) => void events.push(e) }]);
  browserIds = 0;
  flow = createAuthorizeFlow({
    config, clients, clock, logger: silent, events: eventService,
    validator: createRequestValidator({ clients, scopeCatalog: { apiScopes: new Set(['api.read']), identityScopes: new Set(['openid', 'profile']) } }),
    sessions,
    interactions: createInteractions({ store, clock }),
    codes,
    pushed: createPushedRequests({ store, clock }),
    users: {
      validate: async (username, password) => (username === 'alice' && password === 'correct horse' ? alice : undefined),
      findBySubject: async (id) => (id === alice.subjectId ? alice : undefined),
    },
    passwordThrottle: createPasswordThrottle({ pairThreshold: 3, userThreshold: 10, addressThreshold: 50, maxDelay: 60, window: 900 }),
    csrf: createCsrf(Buffer.alloc(32, 7)),
    newBrowserId: () => `browser-${++browserIds}`,
    callbackUrl: `${ISSUER}/connect/callback`,
    scopeDescriptions: new Map([['api.read', 'Read your orders']]),
    // Stands in for the ID token reader: a hint is a token this service issued to a client about a user.
    readHint: async (token) => hints.get(token),
  });
});

const request = (overrides: Record<string, string> = {}) =>
  new Map(Object.entries({ client_id: 'web', redirect_uri: 'https://web.example/cb', response_type: 'code', scope: 'openid api.read', state: 'st-1', ...overrides }));
const browser = (browserId?: string): BrowserContext => ({ browserId, remoteAddress: '10.0.0.1', requestId: 'req-1' });

/** The query of a redirect to the client. */
function redirected(outcome: FlowOutcome): Record<string, string> {
  expect(outcome.response?.kind).toBe('redirect');
  const url = new URL((outcome.response as { location: string }).location);
  return Object.fromEntries(url.searchParams);
}

/** A browser signed in as alice, `secondsAgo` before now. */
async function signedIn(secondsAgo = 0): Promise<string> {
  clock.advance(-secondsAgo);
  await sessions.start('signed-in-browser', alice.subjectId);
  clock.advance(secondsAgo);
  return 'signed-in-browser';
}

/** Fills the sign-in page the outcome shows and posts it. */
function submitSignIn(page: FlowOutcome, browserId: string, username: string, password: string): Promise<FlowOutcome> {
  const view = page.view as { kind: string; interaction: string; csrf: string };
  expect(view.kind).toBe('sign-in');
  return flow.interact(new Map([['step', 'sign-in'], ['interaction', view.interaction], ['csrf', view.csrf], ['username', username], ['password', password]]), browser(browserId));
}

describe('request checks', () => {
  it('shows the unknown-client page (400) for an unknown client, never redirecting', async () => {
    expect(await flow.authorize(request({ client_id: 'nobody' }), browser())).toEqual({ status: 400, view: { kind: 'message', message: 'client-unknown' } });
  });

  it('shows the same page for an unregistered redirect URI', async () => {
    expect(await flow.authorize(request({ redirect_uri: 'https://evil.example/cb' }), browser())).toEqual({ status: 400, view: { kind: 'message', message: 'client-unknown' } });
  });

  it('redirects a later failure to the client with state and iss', async () => {
    const outcome = await flow.authorize(request({ response_type: 'token' }), browser());
    expect(redirected(outcome)).toMatchObject({ error: 'unsupported_response_type', state: 'st-1', iss: ISSUER });
  });
});

describe('sign-in step', () => {
  it('shows the sign-in page to a browser without a session, and gives it a browser id', async () => {
    const outcome = await flow.authorize(request({ login_hint: 'alice' }), browser());
    expect(outcome).toMatchObject({
      status: 200, browserId: 'browser-1', redirectUri: 'https://web.example/cb',
      view: { kind: 'sign-in', clientId: 'web', clientName: 'Web shop', username: 'alice', interaction: expect.any(String), csrf: expect.any(String) },
    });
  });

  it('answers prompt=none without a session with login_required at the redirect URI, and no page', async () => {
    const outcome = await flow.authorize(request({ prompt: 'none' }), browser());
    expect(outcome.view).toBeUndefined();
    expect(redirected(outcome)).toEqual({ error: 'login_required', error_description: 'The user must sign in.', state: 'st-1', iss: ISSUER });
  });

  it('signs alice in with the right password, under a new browser id, and issues the code', async () => {
    const page = await flow.authorize(request(), browser());
    const outcome = await submitSignIn(page, page.browserId!, 'alice', 'correct horse');
    expect(outcome.browserId).toBe('browser-2');
    const { code, state, iss } = redirected(outcome);
    expect({ state, iss }).toEqual({ state: 'st-1', iss: ISSUER });
    expect(await codes.find(code!)).toMatchObject({ clientId: 'web', subject: 'alice-sub', grant: { redirectUri: 'https://web.example/cb', scopes: ['openid', 'api.read'], authTime: START / 1000 } });
    expect(events.map((e) => e.type)).toEqual(['user.signed_in', 'code.issued']);
    expect(events[1]).toMatchObject({ clientId: 'web', subject: 'alice-sub', scopes: ['openid', 'api.read'] });
  });

  it('shows the page again with credentials-wrong for a wrong password, keeping the username', async () => {
    const page = await flow.authorize(request(), browser());
    const outcome = await submitSignIn(page, page.browserId!, 'alice', 'wrong');
    expect(outcome).toMatchObject({ status: 200, view: { kind: 'sign-in', notice: 'credentials-wrong', username: 'alice' } });
    expect(outcome.response).toBeUndefined();
    expect(events).toEqual([expect.objectContaining({ type: 'user.sign_in_failed', via: 'sign_in_page', reason: 'rejected by the sign-in check' })]);
    expect(JSON.stringify(events)).not.toContain('wrong');
  });

  it('shows credentials-missing for an empty password', async () => {
    const page = await flow.authorize(request(), browser());
    expect((await submitSignIn(page, page.browserId!, 'alice', '')).view).toMatchObject({ notice: 'credentials-missing' });
  });

  it('answers 429 with Retry-After once a username was guessed at too often', async () => {
    const page = await flow.authorize(request(), browser());
    for (let i = 0; i < 3; i++) await submitSignIn(page, page.browserId!, 'alice', `guess-${i}`);
    const outcome = await submitSignIn(page, page.browserId!, 'alice', 'correct horse');
    expect(outcome).toMatchObject({ status: 429, view: { kind: 'sign-in', notice: 'too-many-sign-ins' }, headers: { 'Retry-After': expect.stringMatching(/^\d+$/) } });
  });

  it('refuses a sign-in form posted from another browser (CSRF) with start-again', async () => {
    const page = await flow.authorize(request(), browser());
    expect(await submitSignIn(page, 'another-browser', 'alice', 'correct horse')).toEqual({ status: 400, view: { kind: 'message', message: 'start-again' } });
  });

  it('skips the sign-in page for a browser with a session', async () => {
    const outcome = await flow.authorize(request(), browser(await signedIn()));
    expect(redirected(outcome).code).toEqual(expect.any(String));
  });

  it('asks a signed-in browser to sign in again for prompt=login and max_age=0', async () => {
    const browserId = await signedIn();
    expect((await flow.authorize(request({ prompt: 'login' }), browser(browserId))).view?.kind).toBe('sign-in');
    expect((await flow.authorize(request({ max_age: '0' }), browser(browserId))).view?.kind).toBe('sign-in');
  });

  it('asks for a new sign-in when the session is older than max_age, not when it is younger', async () => {
    const browserId = await signedIn(120);
    expect((await flow.authorize(request({ max_age: '60' }), browser(browserId))).view?.kind).toBe('sign-in');
    expect(redirected(await flow.authorize(request({ max_age: '300' }), browser(browserId))).code).toEqual(expect.any(String));
  });
});

describe('id_token_hint', () => {
  it("goes straight to the code when the hint names the session's user", async () => {
    expect(redirected(await flow.authorize(request({ id_token_hint: 'alice-for-web' }), browser(await signedIn()))).code).toEqual(expect.any(String));
  });

  it('asks for a sign-in when the hint names another user than the session’s', async () => {
    expect((await flow.authorize(request({ id_token_hint: 'bob-for-web' }), browser(await signedIn()))).view?.kind).toBe('sign-in');
  });

  it('answers invalid_request at the redirect URI for a hint issued to another client, or no hint of ours', async () => {
    const browserId = await signedIn();
    for (const hint of ['alice-for-partner', 'forged']) {
      expect(redirected(await flow.authorize(request({ id_token_hint: hint }), browser(browserId))))
        .toEqual({ error: 'invalid_request', error_description: 'The id_token_hint is not valid.', state: 'st-1', iss: ISSUER });
    }
  });
});

describe('consent step', () => {
  const partner = (overrides: Record<string, string> = {}) => request({ client_id: 'partner', redirect_uri: 'https://partner.example/cb', ...overrides });

  it('shows the consent page with the scopes and the user for a client that requires consent', async () => {
    const outcome = await flow.authorize(partner(), browser(await signedIn()));
    expect(outcome).toMatchObject({
      status: 200,
      view: {
        kind: 'consent', clientId: 'partner', clientName: 'Partner app', username: 'alice', unverified: false,
        scopes: [{ name: 'openid', description: undefined }, { name: 'api.read', description: 'Read your orders' }],
      },
    });
  });

  it('answers prompt=none that needs consent with consent_required at the redirect URI', async () => {
    const outcome = await flow.authorize(partner({ prompt: 'none' }), browser(await signedIn()));
    expect(redirected(outcome)).toEqual({ error: 'consent_required', error_description: 'The user must consent.', state: 'st-1', iss: ISSUER });
  });

  it('issues the code once the user approves, and remembers the consent for the next request', async () => {
    const browserId = await signedIn();
    const page = await flow.authorize(partner(), browser(browserId));
    const view = page.view as { interaction: string; csrf: string };
    const approved = await flow.interact(new Map([['step', 'consent'], ['interaction', view.interaction], ['csrf', view.csrf], ['decision', 'approve']]), browser(browserId));
    expect(redirected(approved).code).toEqual(expect.any(String));
    expect(events.map((e) => e.type)).toEqual(['consent.given', 'code.issued']);
    // Same scopes again, even with prompt=none: no page.
    expect(redirected(await flow.authorize(partner({ prompt: 'none' }), browser(browserId))).code).toEqual(expect.any(String));
  });

  it('answers access_denied at the redirect URI when the user denies', async () => {
    const browserId = await signedIn();
    const page = await flow.authorize(partner(), browser(browserId));
    const view = page.view as { interaction: string; csrf: string };
    const denied = await flow.interact(new Map([['step', 'consent'], ['interaction', view.interaction], ['csrf', view.csrf], ['decision', 'deny']]), browser(browserId));
    expect(redirected(denied)).toEqual({ error: 'access_denied', error_description: 'The user denied the request.', state: 'st-1', iss: ISSUER });
    expect(events.map((e) => e.type)).toEqual(['consent.denied']);
  });

  it('takes prompt=login through sign-in and consent to the code, without a second sign-in page', async () => {
    const page = await flow.authorize(partner({ prompt: 'login' }), browser(await signedIn()));
    const consentPage = await submitSignIn(page, 'signed-in-browser', 'alice', 'correct horse');
    expect(consentPage).toMatchObject({ browserId: 'browser-1', view: { kind: 'consent' } });
    const view = consentPage.view as { interaction: string; csrf: string };
    const approved = await flow.interact(new Map([['step', 'consent'], ['interaction', view.interaction], ['csrf', view.csrf], ['decision', 'approve']]), browser('browser-1'));
    expect(redirected(approved).code).toEqual(expect.any(String));
  });

  it('asks again for prompt=consent, even for a first-party client', async () => {
    expect((await flow.authorize(request({ prompt: 'consent' }), browser(await signedIn()))).view?.kind).toBe('consent');
  });
});

describe('code issued', () => {
  it('answers form_post with the code in the fields', async () => {
    const outcome = await flow.authorize(request({ response_mode: 'form_post', nonce: 'n-1' }), browser(await signedIn()));
    expect(outcome.response).toMatchObject({ kind: 'form_post', action: 'https://web.example/cb' });
    const fields = new Map((outcome.response as { fields: ReadonlyArray<readonly [string, string]> }).fields);
    expect(fields.get('state')).toBe('st-1');
    expect(await codes.find(fields.get('code')!)).toMatchObject({ grant: { nonce: 'n-1' } });
  });

  it('issues codes that expire after the client’s authorizationCodeLifetime', async () => {
    const { code } = redirected(await flow.authorize(request(), browser(await signedIn())));
    expect((await codes.find(code!))?.expiresAt).toBe(START + 300_000);
  });
});
