/**
 * Events over HTTP (issue 8): a drop-in sink plugin (test/fixtures/event-sink-plugin), written
 * only against `svc/sdk` and loaded through `pluginDirs`, receives a typed event for every step a
 * user of the service takes. Sinks that throw, reject or never settle run first and disturb
 * nothing; a malformed sink stops start-up.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { bootError } from '../support/boot-error.js';
import type { RaisedEvent } from '../../src/sdk/index.js';
import { basic, firstPartyPlugins, postForm, startServer, type TestServer } from '../support/server.js';
import { eventRecording, eventSinkPlugins, type EventRecording } from '../support/event-recorder.js';
import { deviceGrantType, hiddenFields, PageClient } from '../device/helpers.js';

const alice = { subjectId: 'sub-alice', username: 'alice', password: 'alice-password-7' };
const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const config = async (): Promise<UserConfig> => ({
  apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }],
  apiResources: [{ name: 'api1', scopes: ['api1.read', 'api1.write'], secrets: [{ value: hashSecret('api1-secret') }] }],
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  users: [{ ...alice, password: await hashPassword(alice.password, { ln: 4, r: 8, p: 1 }) }],
  clients: [
    { clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
    {
      clientId: 'web-ref', clientSecrets: [{ value: hashSecret('web-ref-secret') }], allowedGrantTypes: ['password', 'refresh_token'],
      allowedScopes: ['openid', 'api1.read'], allowOfflineAccess: true, accessTokenType: 'reference',
    },
    { clientId: 'tv', requireClientSecret: false, allowedGrantTypes: [deviceGrantType], allowedScopes: ['api1.read'] },
  ],
});

let server: TestServer;
let recording: EventRecording;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  recording = eventRecording(['token.issued', 'device.approved']);
  server = await startServer({
    ...(await config()),
    pluginDirs: [firstPartyPlugins, eventSinkPlugins],
    plugins: { 'event-recorder': recording.options },
  });
});
afterAll(async () => {
  await server?.close();
  recording?.remove();
  process.off('unhandledRejection', onUnhandled);
});

const token = (params: Record<string, string>, headers: Record<string, string> = {}) => postForm(`${server.url}/connect/token`, params, headers);
const types = (events: readonly RaisedEvent[]) => events.map((e) => e.type);

/** Each event stamped with the time and, for endpoint events, the id the response echoed. */
function expectStamped(events: readonly RaisedEvent[], requestId: string | null): void {
  expect(requestId).toBeTruthy();
  for (const e of events) {
    expect(e.time).toMatch(iso);
    expect(Math.abs(Date.parse(e.time) - Date.now())).toBeLessThan(60_000);
    expect(e.requestId, e.type).toBe(requestId);
  }
}

describe('the token endpoint', () => {
  it('client_secret_basic: client.authenticated, then token.issued with grant type, client, subject and scopes', async () => {
    const { result, events } = await recording.during(() => token({ grant_type: 'client_credentials', scope: 'api1.read' }, { authorization: basic('m2m', 'm2m-secret') }));
    expect(result.status).toBe(200);
    expect(events).toEqual([
      expect.objectContaining({ type: 'client.authenticated', clientId: 'm2m', method: 'client_secret_basic', endpoint: 'token' }),
      expect.objectContaining({ type: 'token.issued', clientId: 'm2m', grantType: 'client_credentials', subject: 'm2m', scopes: ['api1.read'] }),
    ]);
    expectStamped(events, result.headers.get('x-request-id'));
  });

  it('client_secret_post names its method', async () => {
    const { result, events } = await recording.during(() => token({ grant_type: 'client_credentials', client_id: 'm2m', client_secret: 'm2m-secret' }));
    expect(result.status).toBe(200);
    expect(events[0]).toMatchObject({ type: 'client.authenticated', clientId: 'm2m', method: 'client_secret_post', endpoint: 'token' });
  });

  it('a wrong secret: client.authentication_failed with the claimed id and a reason, then token.failed invalid_client', async () => {
    const { result, events } = await recording.during(() => token({ grant_type: 'client_credentials' }, { authorization: basic('m2m', 'not-the-secret') }));
    expect(result.status).toBe(401);
    expect(types(events)).toEqual(['client.authentication_failed', 'token.failed']);
    expect(events[0]).toMatchObject({ clientId: 'm2m', method: 'client_secret_basic', endpoint: 'token', reason: expect.stringContaining('client_secret_basic') });
    expect(events[1]).toEqual(expect.objectContaining({ grantType: 'client_credentials', error: 'invalid_client' }));
    expect(events[1]).not.toHaveProperty('clientId');
    expectStamped(events, result.headers.get('x-request-id'));
  });

  it('an authenticated client using a grant it may not: token.failed names the client and unauthorized_client', async () => {
    const { result, events } = await recording.during(() => token({ grant_type: 'password', username: 'alice', password: alice.password }, { authorization: basic('m2m', 'm2m-secret') }));
    expect(result.status).toBe(400);
    expect(events.at(-1)).toMatchObject({ type: 'token.failed', clientId: 'm2m', grantType: 'password', error: 'unauthorized_client' });
  });

  it('the password grant: user.signed_in, then token.issued for the user', async () => {
    const { result, events } = await recording.during(() =>
      token({ grant_type: 'password', username: 'alice', password: alice.password, scope: 'openid api1.read offline_access' }, { authorization: basic('web-ref', 'web-ref-secret') }),
    );
    expect(result.status).toBe(200);
    expect(types(events)).toEqual(['client.authenticated', 'user.signed_in', 'token.issued']);
    expect(events[1]).toMatchObject({ subject: alice.subjectId, via: 'password_grant' });
    expect(events[2]).toMatchObject({ clientId: 'web-ref', grantType: 'password', subject: alice.subjectId, scopes: ['openid', 'api1.read', 'offline_access'] });
  });

  it('a wrong password: user.sign_in_failed, then token.failed invalid_grant', async () => {
    const { result, events } = await recording.during(() =>
      token({ grant_type: 'password', username: 'alice', password: 'wrong-password' }, { authorization: basic('web-ref', 'web-ref-secret') }),
    );
    expect(result.status).toBe(400);
    expect(types(events)).toEqual(['client.authenticated', 'user.sign_in_failed', 'token.failed']);
    expect(events[1]).toMatchObject({ via: 'password_grant', reason: expect.any(String) });
    expect(events[2]).toMatchObject({ clientId: 'web-ref', grantType: 'password', error: 'invalid_grant' });
  });

  it('an unknown grant type: token.failed unsupported_grant_type, and no authentication event', async () => {
    const { result, events } = await recording.during(() => token({ grant_type: 'urn:example:nope' }, { authorization: basic('m2m', 'm2m-secret') }));
    expect(result.status).toBe(400);
    expect(events).toEqual([expect.objectContaining({ type: 'token.failed', grantType: 'urn:example:nope', error: 'unsupported_grant_type' })]);
  });

  it('the refresh grant issues with its grant type', async () => {
    const issued = await token({ grant_type: 'password', username: 'alice', password: alice.password, scope: 'api1.read offline_access' }, { authorization: basic('web-ref', 'web-ref-secret') });
    const { result, events } = await recording.during(() =>
      token({ grant_type: 'refresh_token', refresh_token: issued.body.refresh_token as string }, { authorization: basic('web-ref', 'web-ref-secret') }),
    );
    expect(result.status).toBe(200);
    expect(events.at(-1)).toMatchObject({ type: 'token.issued', clientId: 'web-ref', grantType: 'refresh_token', subject: alice.subjectId });
  });
});

describe('introspection and revocation', () => {
  async function referenceToken(): Promise<{ access_token: string; refresh_token: string }> {
    const res = await token({ grant_type: 'password', username: 'alice', password: alice.password, scope: 'api1.read offline_access' }, { authorization: basic('web-ref', 'web-ref-secret') });
    return res.body as { access_token: string; refresh_token: string };
  }
  const introspect = (value: string, secret = 'api1-secret') => postForm(`${server.url}/connect/introspect`, { token: value }, { authorization: basic('api1', secret) });
  const revoke = (value: string) => postForm(`${server.url}/connect/revocation`, { token: value }, { authorization: basic('web-ref', 'web-ref-secret') });

  it('an API introspecting: api.authenticated, then token.introspected with the token’s client', async () => {
    const { access_token } = await referenceToken();
    const { result, events } = await recording.during(() => introspect(access_token));
    expect(result.body.active).toBe(true);
    expect(events).toEqual([
      expect.objectContaining({ type: 'api.authenticated', apiResource: 'api1', method: 'client_secret_basic' }),
      expect.objectContaining({ type: 'token.introspected', apiResource: 'api1', active: true, clientId: 'web-ref' }),
    ]);
    expectStamped(events, result.headers.get('x-request-id'));
  });

  it('an inactive token is introspected as inactive, with no client', async () => {
    const { events } = await recording.during(() => introspect('x'.repeat(43)));
    expect(events[1]).toEqual(expect.objectContaining({ type: 'token.introspected', apiResource: 'api1', active: false }));
    expect(events[1]).not.toHaveProperty('clientId');
  });

  it('an API with a wrong secret: api.authentication_failed naming it, and nothing introspected', async () => {
    const { access_token } = await referenceToken();
    const { result, events } = await recording.during(() => introspect(access_token, 'wrong-api-secret'));
    expect(result.status).toBe(401);
    expect(events).toEqual([expect.objectContaining({ type: 'api.authentication_failed', apiResource: 'api1', method: 'client_secret_basic', reason: expect.any(String) })]);
    expectStamped(events, result.headers.get('x-request-id'));
  });

  it('revoking a reference token and a refresh token: token.revoked with each token type', async () => {
    const { access_token, refresh_token } = await referenceToken();
    const first = await recording.during(() => revoke(access_token));
    expect(first.result.status).toBe(200);
    expect(first.events).toEqual([
      expect.objectContaining({ type: 'client.authenticated', clientId: 'web-ref', endpoint: 'revocation' }),
      expect.objectContaining({ type: 'token.revoked', clientId: 'web-ref', tokenType: 'reference_token' }),
    ]);
    const second = await recording.during(() => revoke(refresh_token));
    expect(second.events.at(-1)).toMatchObject({ type: 'token.revoked', clientId: 'web-ref', tokenType: 'refresh_token' });
    // Nothing left to revoke: no event claims otherwise.
    const again = await recording.during(() => revoke(access_token));
    expect(types(again.events)).toEqual(['client.authenticated']);
  });
});

describe('the device flow', () => {
  async function startFlow() {
    const { result, events } = await recording.during(() => postForm(`${server.url}/connect/deviceauthorization`, { client_id: 'tv', scope: 'api1.read' }));
    expect(result.status).toBe(200);
    return { codes: result.body as { device_code: string; user_code: string; verification_uri_complete: string }, events, requestId: result.headers.get('x-request-id') };
  }

  async function signInPage(codes: { user_code: string; verification_uri_complete: string }) {
    const page = new PageClient(server.url);
    const entry = await page.get(codes.verification_uri_complete);
    const signIn = await page.submit(entry, { user_code: codes.user_code });
    expect(signIn.html).toContain('<h1>Sign in</h1>');
    return { page, signIn };
  }

  const poll = (deviceCode: string) => token({ grant_type: deviceGrantType, device_code: deviceCode, client_id: 'tv' });

  it('device authorization: the public client authenticated with method none, then device.authorized with its scopes', async () => {
    const { events, requestId } = await startFlow();
    expect(events).toEqual([
      expect.objectContaining({ type: 'client.authenticated', clientId: 'tv', method: 'none', endpoint: 'device_authorization' }),
      expect.objectContaining({ type: 'device.authorized', clientId: 'tv', scopes: ['api1.read'] }),
    ]);
    expectStamped(events, requestId);
  });

  it('page sign-in fails then succeeds, the user approves, the poll issues: each step has its event', async () => {
    const { codes } = await startFlow();
    const { page, signIn } = await signInPage(codes);

    const failed = await recording.during(() => page.submit(signIn, { username: 'alice', password: 'wrong-password' }));
    expect(failed.result.status).toBe(400);
    expect(failed.events).toEqual([expect.objectContaining({ type: 'user.sign_in_failed', via: 'device_page', reason: expect.any(String) })]);

    const signedIn = await recording.during(() => page.submit(failed.result, { username: 'alice', password: alice.password }));
    expect(signedIn.result.html).toContain('Allow access?');
    expect(signedIn.events).toEqual([expect.objectContaining({ type: 'user.signed_in', subject: alice.subjectId, via: 'device_page' })]);

    const pending = await recording.during(() => poll(codes.device_code));
    expect(pending.result.body.error).toBe('authorization_pending');
    // Polling answers are not failures.
    expect(types(pending.events)).toEqual(['client.authenticated']);

    const approved = await recording.during(() => page.submit(signedIn.result, { decision: 'approve' }));
    expect(approved.result.html).toContain('Device connected');
    expect(approved.events).toEqual([expect.objectContaining({ type: 'device.approved', clientId: 'tv', subject: alice.subjectId })]);
    for (const e of [...failed.events, ...signedIn.events, ...approved.events]) expect(e.time).toMatch(iso);
  });

  it('an approved code polled after the interval: token.issued with the device grant type', async () => {
    const { codes } = await startFlow();
    const { page, signIn } = await signInPage(codes);
    const consent = await page.submit(signIn, { username: 'alice', password: alice.password });
    await page.submit(consent, { decision: 'approve' });
    const { result, events } = await recording.during(() => poll(codes.device_code));
    expect(result.status).toBe(200);
    expect(events.at(-1)).toMatchObject({ type: 'token.issued', clientId: 'tv', grantType: deviceGrantType, subject: alice.subjectId, scopes: ['api1.read'] });
    expectStamped(events, result.headers.get('x-request-id'));
  });

  it('a denial: device.denied, and the poll fails with access_denied', async () => {
    const { codes } = await startFlow();
    const { page, signIn } = await signInPage(codes);
    const consent = await page.submit(signIn, { username: 'alice', password: alice.password });
    const denied = await recording.during(() => page.submit(consent, { decision: 'deny' }));
    expect(denied.events).toEqual([expect.objectContaining({ type: 'device.denied', clientId: 'tv', subject: alice.subjectId })]);
    const polled = await recording.during(() => poll(codes.device_code));
    expect(polled.events.at(-1)).toMatchObject({ type: 'token.failed', clientId: 'tv', grantType: deviceGrantType, error: 'access_denied' });
  });

  it('a POST without the CSRF token raises nothing', async () => {
    const { codes } = await startFlow();
    const { page } = await signInPage(codes);
    const [fields] = hiddenFields((await page.get('/device')).html);
    const { result, events } = await recording.during(() => page.post({ ...fields, csrf: 'forged', step: 'sign-in', user_code: codes.user_code, username: 'alice', password: alice.password }));
    expect(result.status).toBe(403);
    expect(events).toEqual([]);
  });
});

describe('start-up', () => {
  it('raises plugin.loaded once per plugin, with its source, grant types and authentication methods', () => {
    const loaded = recording.all().filter((e) => e.type === 'plugin.loaded');
    const names = loaded.map((e) => (e.type === 'plugin.loaded' ? e.plugin : ''));
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['standard-grants', 'log-events', 'shared-secret', 'private-key-jwt', 'crashing-sinks', 'event-recorder']));
    expect(loaded).toContainEqual(expect.objectContaining({
      plugin: 'standard-grants', source: '(built-in)', authenticationMethods: [],
      grantTypes: ['client_credentials', 'password', 'refresh_token', deviceGrantType, 'authorization_code'],
    }));
    expect(loaded).toContainEqual(expect.objectContaining({
      plugin: 'shared-secret', source: join(firstPartyPlugins, 'shared-secret'), grantTypes: [],
      authenticationMethods: ['client_secret_basic', 'client_secret_post'],
    }));
    expect(loaded).toContainEqual(expect.objectContaining({ plugin: 'event-recorder', source: join(eventSinkPlugins, 'event-recorder'), grantTypes: [], authenticationMethods: [] }));
    for (const e of loaded) {
      expect(e.time).toMatch(iso);
      expect(e).not.toHaveProperty('requestId');
    }
    // Raised before anything else.
    expect(recording.all().slice(0, loaded.length)).toEqual(loaded);
  });
});

describe('sinks', () => {
  it('a sink that declares types receives exactly those events, in order', () => {
    const typed = recording.typed();
    expect(typed.length).toBeGreaterThan(5);
    expect(new Set(types(typed))).toEqual(new Set(['token.issued', 'device.approved']));
    expect(typed).toEqual(recording.all().filter((e) => e.type === 'token.issued' || e.type === 'device.approved'));
  });

  it('the built-in sink writes one log line per event, failures at warn, a step whose outcome has its own line at debug', async () => {
    const { result, events } = await recording.during(() => token({ grant_type: 'client_credentials' }, { authorization: basic('m2m', 'wrong') }));
    const requestId = result.headers.get('x-request-id');
    const lines = server.logs.filter((l) => l.component === 'events' && (l.event as RaisedEvent).requestId === requestId);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[40, 'client.authentication_failed'], [40, 'token.failed']]);
    expect(lines.map((l) => l.event)).toEqual(events);
    const ok = await recording.during(() => token({ grant_type: 'client_credentials' }, { authorization: basic('m2m', 'm2m-secret') }));
    const okId = ok.result.headers.get('x-request-id');
    expect(server.logs.filter((l) => l.component === 'events' && (l.event as RaisedEvent).requestId === okId).map((l) => [l.level, l.msg]))
      .toEqual([[20, 'client.authenticated'], [30, 'token.issued']]);
  });

  it('sinks that throw, reject or never settle disturb no request, starve no later sink, and are logged', async () => {
    const warnings = () => server.logs.filter((l) => l.msg === 'event sink failed').map((l) => (l.err as { message: string }).message);
    const before = warnings().length;
    const { result, events } = await recording.during(() => token({ grant_type: 'client_credentials', scope: 'api1.read' }, { authorization: basic('m2m', 'm2m-secret') }));
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'api1.read' });
    expect(types(events)).toEqual(['client.authenticated', 'token.issued']);
    // The sinks fail after the answer: wait for their four log lines (bounded), not for a margin.
    for (const deadline = Date.now() + 5000; warnings().length - before < 4 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5));
    expect(warnings().slice(before).sort()).toEqual(['crashing sink rejected', 'crashing sink rejected', 'crashing sink threw', 'crashing sink threw']);
    expect(unhandled).toEqual([]);
  });
});

describe('a malformed sink stops start-up', () => {
  const brokenDir = (caseName: string) => join(eventSinkPlugins, '..', 'broken', caseName);
  const bootErrorOf = (caseName: string) => bootError([brokenDir(caseName)], brokenDir(caseName));

  it.each([
    ['sink-without-handle', 'eventSinks[0]: handle must be a function'],
    ['sink-empty-types', 'eventSinks[0]: types, when given, must be a non-empty array of event types'],
    ['sink-types-not-strings', 'eventSinks[0]: types, when given, must be a non-empty array of event types'],
    ['sink-types-not-array', 'eventSinks[0]: types, when given, must be a non-empty array of event types'],
    ['sink-unknown-type', /^eventSinks\[0\]: types: unknown event type "token\.isued" \(known: token\.issued, token\.failed, .*plugin\.loaded\)$/],
    ['sink-repeated-type', 'eventSinks[0]: types: "token.failed" is listed twice'],
    ['sink-factory-throws', 'eventSinks[0] failed to start: option "url" is required'],
  ])('%s: PLUGIN_INVALID naming the plugin, its folder and the problem', async (caseName, problem) => {
    const err = await bootErrorOf(caseName);
    expect(err.code).toBe('PLUGIN_INVALID');
    const prefix = `plugin "${caseName}" (${join(brokenDir(caseName), caseName)}): `;
    expect(err.message.startsWith(prefix), err.message).toBe(true);
    if (typeof problem === 'string') expect(err.message.slice(prefix.length)).toBe(problem);
    else expect(err.message.slice(prefix.length)).toMatch(problem);
  });
});
