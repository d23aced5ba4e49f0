/**
 * Nothing secret reaches a log line or an event (docs/guides/operations.md "Running it", SECURITY.md "Logs and
 * events"): one server at `trace` level with its log captured and the event-recorder sink
 * loaded, a full scenario over HTTP with known secrets, passwords, assertions, tokens and codes
 * (successes and failures of every flow), then a search of the whole log and every event for
 * each value that crossed the wire.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientConfig, UserConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, firstPartyPlugins, postForm, startServer, type TestServer } from '../support/server.js';
import { eventRecording, eventSinkPlugins, type EventRecording } from '../support/event-recorder.js';
import { deviceGrantType, hiddenFields, PageClient, type PageResponse } from '../device/helpers.js';
import { JWT_BEARER, makeKey, publicJwk, sign, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const tokenExchange = 'urn:ietf:params:oauth:grant-type:token-exchange';
const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';

/** Every value that must never be written anywhere, by what it is (the label shows in a failure). */
const secrets = new Map<string, string>();
function keep(label: string, value: unknown): string {
  if (typeof value !== 'string' || value.length < 8) throw new Error(`${label}: expected a secret string, got ${JSON.stringify(value)}`);
  secrets.set(`${label} #${secrets.size}`, value);
  return value;
}

// Distinct, greppable values: if one shows up anywhere, the failure says which.
const clientSecret = (clientId: string) => `${clientId}-s3cret-${randomUUID()}`;
const plain = {
  basicClient: clientSecret('basic-client'),
  postClient: clientSecret('post-client'),
  web: clientSecret('web'),
  webRef: clientSecret('web-ref'),
  delegating: clientSecret('api1.client'),
  exchanger: clientSecret('exchanger'),
  api1: clientSecret('api1'),
  backend: clientSecret('backend'),
  alicePassword: `alice-pa55word-${randomUUID()}`,
};
const alice = { subjectId: 'sub-alice', username: 'alice' };

let server: TestServer;
// Real time, moved forward by hand to wait out the device flow's polling interval.
let skipped = 0;
const clock = { now: () => Date.now() + skipped };
let recording: EventRecording;
let clientKey: TestKey;
let strangerKey: TestKey;

function client(clientId: string, secret: string, rest: Omit<ClientConfig, 'clientId' | 'clientSecrets'>): ClientConfig {
  return { clientId, clientSecrets: [{ value: hashSecret(secret) }], ...rest };
}

beforeAll(async () => {
  for (const value of Object.values(plain)) keep('configured secret or password', value);
  [clientKey, strangerKey] = await Promise.all([makeKey('P-256'), makeKey('P-256')]);
  const userScopes = ['openid', 'profile', 'api1.read'];
  const config: UserConfig = {
    logLevel: 'trace',
    pluginDirs: [firstPartyPlugins, eventSinkPlugins],
    apiScopes: [{ name: 'api1.read' }, { name: 'backend.read' }],
    apiResources: [
      { name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret(plain.api1) }] },
      { name: 'backend', scopes: ['backend.read'], secrets: [{ value: hashSecret(plain.backend) }] },
    ],
    identityResources: [{ name: 'openid', claims: ['sub'] }, { name: 'profile', claims: ['name'] }],
    users: [{ ...alice, password: await hashPassword(plain.alicePassword, { ln: 4, r: 8, p: 1 }), claims: { name: 'Alice Smith' } }],
    clients: [
      client('basic-client', plain.basicClient, { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }),
      client('post-client', plain.postClient, { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }),
      { clientId: 'jwt-client', clientSecrets: [{ type: 'JsonWebKey', value: JSON.stringify(publicJwk(clientKey)) }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
      client('web', plain.web, { allowedGrantTypes: ['password', 'refresh_token'], allowedScopes: userScopes, allowOfflineAccess: true }),
      client('web-ref', plain.webRef, {
        allowedGrantTypes: ['password', 'refresh_token'], allowedScopes: userScopes, allowOfflineAccess: true, accessTokenType: 'reference',
      }),
      client('api1.client', plain.delegating, { allowedGrantTypes: ['delegation'], allowedScopes: ['backend.read'], allowedSubjectTokenAudiences: ['api1'] }),
      client('exchanger', plain.exchanger, { allowedGrantTypes: [tokenExchange], allowedScopes: ['backend.read'], allowedSubjectTokenAudiences: ['api1'] }),
      { clientId: 'tv', requireClientSecret: false, allowedGrantTypes: [deviceGrantType, 'refresh_token'], allowedScopes: userScopes, allowOfflineAccess: true },
    ],
  };
  recording = eventRecording(['token.issued', 'token.failed', 'client.authentication_failed']);
  server = await startServer({ ...config, plugins: { 'event-recorder': recording.options } }, { clock });
});
afterAll(async () => {
  await server?.close();
  recording?.remove();
});

// ---- talking to the server; every answer's secrets are kept ----

type Reply = Awaited<ReturnType<typeof postForm>>;

function keepTokens(reply: Reply): Reply {
  for (const name of ['access_token', 'refresh_token', 'id_token', 'device_code', 'user_code'] as const) {
    const value = reply.body[name];
    if (value !== undefined) keep(name, value);
  }
  return reply;
}

function authorization(clientId: string, secret: string): Record<string, string> {
  const header = basic(clientId, secret);
  keep('Basic credentials', header.slice('Basic '.length));
  return { authorization: header };
}

async function token(params: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
  return keepTokens(await postForm(`${server.url}/connect/token`, params, headers));
}

function expectStatus(reply: Reply | PageResponse, status: number): void {
  expect(reply.status, 'body' in reply ? JSON.stringify(reply.body) : reply.html).toBe(status);
}

async function assertion(key: TestKey, clientId = 'jwt-client'): Promise<string> {
  const now = Math.floor(clock.now() / 1000);
  return keep('client assertion', await sign(key, 'ES256', { iss: clientId, sub: clientId, aud: server.url, iat: now, exp: now + 60, jti: randomUUID() }));
}

/** Drives the verification page like a browser: code, a wrong password, the right one, a decision. */
async function decideOnPage(codes: { user_code: string; verification_uri_complete: string }, decision: 'approve' | 'deny'): Promise<void> {
  const page = new PageClient(server.url);
  const keepPage = (res: PageResponse): PageResponse => {
    for (const fields of hiddenFields(res.html)) if (fields.csrf) keep('CSRF token', fields.csrf);
    for (const cookie of page.cookies.values()) keep('session cookie', cookie);
    return res;
  };
  const entry = keepPage(await page.get(codes.verification_uri_complete));
  const wrongCode = keepPage(await page.submit(entry, { user_code: 'BCDF-GHJK' }));
  expectStatus(wrongCode, 400);
  const signIn = keepPage(await page.submit(wrongCode, { user_code: codes.user_code }));
  const wrongPassword = keepPage(await page.submit(signIn, { username: 'alice', password: keep('wrong password', `wrong-pa55-${randomUUID()}`) }));
  expectStatus(wrongPassword, 400);
  const consent = keepPage(await page.submit(wrongPassword, { username: 'alice', password: plain.alicePassword }));
  expect(consent.html).toContain('Allow access?');
  const done = keepPage(await page.submit(consent, { decision }));
  expect(done.html).toContain(decision === 'approve' ? 'Device connected' : 'Request denied');
}

// ---- the scenario ----

async function runScenario(): Promise<void> {
  // client_secret_basic and client_secret_post, right and wrong.
  expectStatus(await token({ grant_type: 'client_credentials', scope: 'api1.read' }, authorization('basic-client', plain.basicClient)), 200);
  expectStatus(await token({ grant_type: 'client_credentials' }, authorization('basic-client', keep('wrong secret', `wrong-${randomUUID()}`))), 401);
  expectStatus(await token({ grant_type: 'client_credentials', client_id: 'post-client', client_secret: plain.postClient }), 200);
  expectStatus(await token({ grant_type: 'client_credentials', client_id: 'post-client', client_secret: keep('wrong secret', `wrong-${randomUUID()}`) }), 401);
  // An unknown client sending a secret-looking value: still nothing logged of it.
  expectStatus(await token({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: keep('wrong secret', `wrong-${randomUUID()}`) }), 401);

  // private_key_jwt: accepted once, refused when replayed, refused when signed by another key.
  const jwt = { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER };
  const accepted = await assertion(clientKey);
  const m2mToken = await token({ ...jwt, client_assertion: accepted });
  expectStatus(m2mToken, 200);
  expectStatus(await token({ ...jwt, client_assertion: accepted }), 401);
  expectStatus(await token({ ...jwt, client_assertion: await assertion(strangerKey) }), 401);
  expectStatus(await token({ ...jwt, client_assertion: keep('malformed assertion', `eyJhbGciOiJFUzI1NiJ9.${randomUUID()}.${randomUUID()}`) }), 401);

  // The password grant (access, refresh and ID token), a wrong password, a refresh, a replayed and a bogus refresh token.
  const web = authorization('web', plain.web);
  const user = await token({ grant_type: 'password', username: 'alice', password: plain.alicePassword, scope: 'openid profile api1.read offline_access' }, web);
  expectStatus(user, 200);
  expect(user.body.id_token).toEqual(expect.any(String));
  expectStatus(await token({ grant_type: 'password', username: 'alice', password: keep('wrong password', `wrong-pa55-${randomUUID()}`) }, web), 400);
  expectStatus(await token({ grant_type: 'password', username: 'mallory', password: keep('wrong password', `wrong-pa55-${randomUUID()}`) }, web), 400);
  const refreshed = await token({ grant_type: 'refresh_token', refresh_token: user.body.refresh_token as string }, web);
  expectStatus(refreshed, 200);
  expectStatus(await token({ grant_type: 'refresh_token', refresh_token: user.body.refresh_token as string }, web), 400);
  expectStatus(await token({ grant_type: 'refresh_token', refresh_token: keep('bogus refresh token', randomUUID()) }, web), 400);

  // Delegation with the user's token; a forged user token is refused.
  const userToken = (await token({ grant_type: 'password', username: 'alice', password: plain.alicePassword, scope: 'api1.read' }, web)).body.access_token as string;
  const delegating = authorization('api1.client', plain.delegating);
  expectStatus(await token({ grant_type: 'delegation', token: userToken, scope: 'backend.read' }, delegating), 200);
  expectStatus(await token({ grant_type: 'delegation', token: keep('forged token', `${userToken.slice(0, -12)}AAAAAAAAAAAA`), scope: 'backend.read' }, delegating), 400);

  // Token exchange, impersonation and delegation (actor token).
  const exchanger = authorization('exchanger', plain.exchanger);
  const exchange = { grant_type: tokenExchange, subject_token: userToken, subject_token_type: accessTokenType, scope: 'backend.read' };
  expectStatus(await token(exchange, exchanger), 200);
  expectStatus(await token({ ...exchange, actor_token: m2mToken.body.access_token as string, actor_token_type: accessTokenType }, exchanger), 200);
  expectStatus(await token({ ...exchange, subject_token: keep('bogus subject token', `not-a-token-${randomUUID()}`) }, exchanger), 400);

  // A reference token, introspected by its API (right and wrong secret), then revoked with its refresh token.
  const webRef = authorization('web-ref', plain.webRef);
  const reference = await token({ grant_type: 'password', username: 'alice', password: plain.alicePassword, scope: 'api1.read offline_access' }, webRef);
  expectStatus(reference, 200);
  const introspect = (value: string, headers: Record<string, string>) => postForm(`${server.url}/connect/introspect`, { token: value }, headers);
  const api1 = authorization('api1', plain.api1);
  expect((await introspect(reference.body.access_token as string, api1)).body).toMatchObject({ active: true });
  expect((await introspect(userToken, api1)).body).toMatchObject({ active: true });
  expect((await introspect(keep('bogus token', randomUUID().replaceAll('-', '') + 'abcdefghijk'), api1)).body).toEqual({ active: false });
  expectStatus(await introspect(reference.body.access_token as string, authorization('api1', keep('wrong API secret', `wrong-${randomUUID()}`))), 401);
  expectStatus(await introspect(reference.body.access_token as string, { authorization: `Bearer ${reference.body.access_token as string}` }), 401);
  const revoke = (value: string, headers: Record<string, string>) => postForm(`${server.url}/connect/revocation`, { token: value }, headers);
  expectStatus(await revoke(reference.body.access_token as string, webRef), 200);
  expectStatus(await revoke(reference.body.refresh_token as string, webRef), 200);
  expectStatus(await revoke(reference.body.access_token as string, authorization('web-ref', keep('wrong secret', `wrong-${randomUUID()}`))), 401);
  expect((await introspect(reference.body.access_token as string, api1)).body).toEqual({ active: false });

  // The device flow: codes, the page (wrong code, wrong password, sign-in), approve, poll, refresh; a denial; a bogus code.
  const device = async () => keepTokens(await postForm(`${server.url}/connect/deviceauthorization`, { client_id: 'tv', scope: 'openid api1.read offline_access' }));
  const codes = (await device()).body as { device_code: string; user_code: string; verification_uri_complete: string };
  keep('user code, as typed without its dash', codes.user_code.replace('-', ''));
  const poll = (deviceCode: string) => token({ grant_type: deviceGrantType, client_id: 'tv', device_code: deviceCode });
  expect((await poll(codes.device_code)).body.error).toBe('authorization_pending');
  await decideOnPage(codes, 'approve');
  skipped += 6_000;
  const deviceTokens = await poll(codes.device_code);
  expectStatus(deviceTokens, 200);
  expectStatus(await token({ grant_type: 'refresh_token', client_id: 'tv', refresh_token: deviceTokens.body.refresh_token as string }), 200);
  const denied = (await device()).body as { device_code: string; user_code: string; verification_uri_complete: string };
  await decideOnPage(denied, 'deny');
  expect((await poll(denied.device_code)).body.error).toBe('access_denied');
  expect((await poll(keep('bogus device code', randomUUID()))).body.error).toBe('invalid_grant');
}

/** The long base64url parts of a JWT (payload, signature): a leaked part is a leak too. */
function jwtParts(value: string): string[] {
  const parts = value.split('.');
  return parts.length === 3 ? parts.slice(1).filter((p) => p.length >= 16) : [];
}

describe('a full scenario at trace level', () => {
  it('writes no secret, password, assertion, token or code to the log or to any event', async () => {
    await runScenario();
    const log = server.logText();
    const events = recording.text();

    // The log and the events are real: the level is trace, and every step was recorded.
    expect(server.app.logger.level).toBe('trace');
    const messages = new Set(server.logs.map((l) => l.msg));
    for (const type of [
      'token.issued', 'token.failed', 'client.authenticated', 'client.authentication_failed', 'api.authenticated',
      'api.authentication_failed', 'token.introspected', 'token.revoked', 'device.authorized', 'device.approved', 'device.denied',
      'user.signed_in', 'user.sign_in_failed', 'plugin.loaded', 'request rejected', 'device authorization decided',
    ]) {
      expect(messages, type).toContain(type);
      if (!['request rejected', 'device authorization decided'].includes(type)) expect(events, type).toContain(`"type":"${type}"`);
    }
    const issuedBy = new Set(server.logs.filter((l) => l.msg === 'token.issued').map((l) => (l.event as { grantType: string }).grantType));
    expect([...issuedBy].sort()).toEqual(['client_credentials', 'delegation', 'password', 'refresh_token', tokenExchange, deviceGrantType].sort());
    expect(server.logs.length).toBeGreaterThan(80);
    expect(recording.typed().length).toBeGreaterThan(20);
    // The values searched for include every kind that crossed the wire.
    const kinds = new Set([...secrets.keys()].map((k) => k.replace(/ #\d+$/, '')));
    for (const kind of ['access_token', 'refresh_token', 'id_token', 'device_code', 'user_code', 'client assertion', 'Basic credentials', 'CSRF token', 'session cookie', 'wrong password']) {
      expect(kinds, kind).toContain(kind);
    }

    const leaks: string[] = [];
    for (const [label, value] of secrets) {
      for (const needle of [value, ...jwtParts(value)]) {
        if (log.includes(needle)) leaks.push(`log: ${label}${needle === value ? '' : ' (part)'}`);
        if (events.includes(needle)) leaks.push(`events: ${label}${needle === value ? '' : ' (part)'}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});
