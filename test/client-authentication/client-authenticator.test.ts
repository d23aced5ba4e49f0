/**
 * Client authentication with plain values: the parsers and validators the first-party plugins
 * (shared-secret, private-key-jwt) give, built through their plugin objects as the host builds
 * them, judged by the authenticator. Every refusal looks the same to the caller; the events say
 * which check failed and never carry a secret.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import privateKeyJwt from '../../plugins/private-key-jwt/index.js';
import sharedSecret from '../../plugins/shared-secret/index.js';
import { createEventService } from '../../src/events/event-service.js';
import { createAuthThrottle } from '../../src/throttling/auth-throttle.js';
import { createClientAuthenticator, type AuthenticationSource, type ClientAuthenticator } from '../../src/client-authentication/client-authenticator.js';
import { OAuthError } from '../../src/oauth/errors.js';
import type { ApiResource, Client, RaisedEvent, Secret } from '../../src/sdk/index.js';
import { hashSecret } from '../../src/sdk/hash.js';
import type { ManualClock } from '../device/helpers.js';
import { DAY, JWT_BEARER, NOW, claimsFor, jwkSecret, makeClient, makeDeps, makeKey, sign, silentLogger, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const shared = (plain: string, expiresAt?: number): Secret => ({ type: 'SharedSecret', value: hashSecret(plain), description: undefined, expiresAt });
const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

let key: TestKey;
let strangerKey: TestKey;
beforeAll(async () => {
  key = await makeKey('P-256');
  strangerKey = await makeKey('P-256');
});

let clock: ManualClock;
let events: RaisedEvent[];
let clients: Client[];
let apiResources: ApiResource[];

function clientsOf(): Client[] {
  return [
    makeClient('web', [shared('web-secret')]),
    // Rotation: one secret has expired, one expires tomorrow, one never.
    makeClient('rotating', [shared('old-secret', NOW - 1000), shared('current-secret', NOW + DAY), shared('next-secret')]),
    { ...makeClient('signed', [jwkSecret(key)]), tokenEndpointAuthMethods: ['private_key_jwt'] },
    { ...makeClient('spa', []), requireClientSecret: false },
  ];
}

/** The authenticator as the host wires it: every parser and validator of both plugins. */
async function authenticator(options: { throttle?: boolean } = {}): Promise<ClientAuthenticator> {
  const jwtDeps = makeDeps({ clients, apiResources, now: clock.now });
  // Each plugin gets its own options slice, as the host hands them out.
  const secretDeps = { ...jwtDeps, options: {}, pluginOptions: {} };
  const secretParsers = [
    ...(await Promise.all((sharedSecret.secretParsers ?? []).map((f) => f(secretDeps)))),
    ...(await Promise.all((privateKeyJwt.secretParsers ?? []).map((f) => f(jwtDeps)))),
  ];
  const secretValidators = [
    ...(await Promise.all((sharedSecret.secretValidators ?? []).map((f) => f(secretDeps)))),
    ...(await Promise.all((privateKeyJwt.secretValidators ?? []).map((f) => f(jwtDeps)))),
  ];
  const eventService = createEventService(silentLogger, clock.now);
  eventService.attach([{ handle: (e) => void events.push(e) }]);
  return createClientAuthenticator({
    clients: new Map(clients.map((c) => [c.clientId, c])),
    apiResources: new Map(apiResources.map((r) => [r.name, r])),
    secretParsers,
    secretValidators,
    clock,
    events: eventService,
    throttle: options.throttle ? createAuthThrottle({ pairThreshold: 2, addressThreshold: 5, maxDelay: 60, window: 900 }) : undefined,
  });
}

function source(params: Record<string, string> = {}, authorization?: string, endpoint = 'token', remoteAddress = '10.0.0.7'): AuthenticationSource {
  return { params: new Map(Object.entries(params)), authorization, endpoint, remoteAddress, requestId: 'req-1' };
}

/** What the caller would see of a refusal. */
async function refusal(attempt: Promise<unknown>) {
  const err = await attempt.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(OAuthError);
  const e = err as OAuthError;
  return { status: e.status, body: e.toJSON(), headers: e.headers, logDetail: e.logDetail };
}

const DENIED = { error: 'invalid_client', error_description: 'Client authentication failed.' };

beforeEach(() => {
  let now = NOW;
  clock = { now: () => now, advance: (seconds) => void (now += seconds * 1000) };
  events = [];
  clients = clientsOf();
  apiResources = [{ name: 'orders-api', scopes: ['api'], secrets: [shared('api-secret')] }];
});

describe('client_secret_basic (shared-secret plugin)', () => {
  it('authenticates with the right secret in the Basic header and raises client.authenticated', async () => {
    const auth = await authenticator();
    const result = await auth.authenticateClient(source({}, basic('web', 'web-secret')));
    expect(result.client.clientId).toBe('web');
    expect(result.method).toBe('client_secret_basic');
    expect(events).toEqual([
      expect.objectContaining({ type: 'client.authenticated', clientId: 'web', method: 'client_secret_basic', endpoint: 'token', requestId: 'req-1' }),
    ]);
  });

  it('refuses a wrong secret with invalid_client, 401 and a Basic challenge; the event says why without the secret', async () => {
    const auth = await authenticator();
    const r = await refusal(auth.authenticateClient(source({}, basic('web', 'guessed-secret'))));
    expect(r).toMatchObject({ status: 401, body: DENIED, headers: { 'WWW-Authenticate': 'Basic realm="svc"' } });
    expect(events).toEqual([
      expect.objectContaining({
        type: 'client.authentication_failed', clientId: 'web', method: 'client_secret_basic', endpoint: 'token',
        reason: 'client_secret_basic for "web": secret does not match any of 1 shared secret(s)',
      }),
    ]);
    expect(JSON.stringify(events)).not.toContain('guessed-secret');
  });

  it('answers an unknown client exactly as a wrong secret', async () => {
    const auth = await authenticator();
    const unknown = await refusal(auth.authenticateClient(source({}, basic('nobody', 'web-secret'))));
    const wrong = await refusal(auth.authenticateClient(source({}, basic('web', 'nope'))));
    expect(unknown.body).toEqual(wrong.body);
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.logDetail).toBe('client_secret_basic: unknown client');
  });

  it('refuses a Basic header that is not base64 with invalid_client', async () => {
    const auth = await authenticator();
    const r = await refusal(auth.authenticateClient(source({}, 'Basic %%%')));
    expect(r).toMatchObject({ status: 401, body: DENIED, headers: { 'WWW-Authenticate': 'Basic realm="svc"' } });
    expect(r.logDetail).toBe('Basic credentials: not base64');
  });

  it('refuses a client_id parameter that names another client than the header', async () => {
    const auth = await authenticator();
    const r = await refusal(auth.authenticateClient(source({ client_id: 'rotating' }, basic('web', 'web-secret'))));
    expect(r).toMatchObject({ status: 401, body: DENIED });
    expect(r.logDetail).toBe('client_id "rotating" does not match the authenticated client');
  });
});

describe('client_secret_post (shared-secret plugin)', () => {
  it('authenticates with client_id and client_secret in the body', async () => {
    const auth = await authenticator();
    const result = await auth.authenticateClient(source({ client_id: 'web', client_secret: 'web-secret' }));
    expect(result).toMatchObject({ client: { clientId: 'web' }, method: 'client_secret_post' });
  });

  it('refuses a wrong secret in the body with invalid_client and no challenge header', async () => {
    const auth = await authenticator();
    const r = await refusal(auth.authenticateClient(source({ client_id: 'web', client_secret: 'wrong' })));
    expect(r).toMatchObject({ status: 401, body: DENIED, headers: {} });
  });

  it('refuses a client_secret without client_id', async () => {
    const auth = await authenticator();
    const r = await refusal(auth.authenticateClient(source({ client_secret: 'web-secret' })));
    expect(r).toMatchObject({ status: 401, body: DENIED, logDetail: 'client_secret without client_id' });
  });

  it('refuses credentials in both the header and the body with invalid_request (RFC 6749 §2.3)', async () => {
    const auth = await authenticator();
    const r = await refusal(auth.authenticateClient(source({ client_id: 'web', client_secret: 'web-secret' }, basic('web', 'web-secret'))));
    expect(r).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'More than one client authentication method was used.' } });
    expect(r.logDetail).toBe('methods: client_secret_basic, client_secret_post');
  });
});

describe('private_key_jwt (private-key-jwt plugin)', () => {
  const assertionParams = (token: string, extra: Record<string, string> = {}) => ({ client_assertion_type: JWT_BEARER, client_assertion: token, ...extra });

  it('authenticates a client assertion signed with the client key, and reports its audience form', async () => {
    const auth = await authenticator();
    const token = await sign(key, 'ES256', claimsFor('signed'));
    const result = await auth.authenticateClient(source(assertionParams(token)));
    expect(result).toMatchObject({ client: { clientId: 'signed' }, method: 'private_key_jwt', assertionAudience: 'issuer' });
    expect(events).toEqual([expect.objectContaining({ type: 'client.authenticated', clientId: 'signed', method: 'private_key_jwt', assertionAudience: 'issuer' })]);
  });

  it('refuses an assertion signed with another key; the event carries neither the assertion nor a secret', async () => {
    const auth = await authenticator();
    const token = await sign(strangerKey, 'ES256', claimsFor('signed'));
    const r = await refusal(auth.authenticateClient(source(assertionParams(token))));
    expect(r).toMatchObject({ status: 401, body: DENIED });
    expect(events).toEqual([expect.objectContaining({ type: 'client.authentication_failed', clientId: 'signed', method: 'private_key_jwt' })]);
    expect(JSON.stringify(events)).not.toContain(token.split('.')[2]);
  });

  it('refuses an assertion for another audience', async () => {
    const auth = await authenticator();
    const token = await sign(key, 'ES256', claimsFor('signed', { aud: 'https://elsewhere.example' }));
    const r = await refusal(auth.authenticateClient(source(assertionParams(token))));
    expect(r).toMatchObject({ status: 401, body: DENIED });
    expect(r.logDetail).toContain('is not the issuer identifier');
  });

  it('refuses an assertion together with a Basic header (one method per request)', async () => {
    const auth = await authenticator();
    const token = await sign(key, 'ES256', claimsFor('signed'));
    const r = await refusal(auth.authenticateClient(source(assertionParams(token), basic('web', 'web-secret'))));
    expect(r.body.error).toBe('invalid_request');
  });

  it('refuses a secret for a client pinned to private_key_jwt (no downgrade)', async () => {
    clients = clients.map((c) => (c.clientId === 'signed' ? { ...c, clientSecrets: [...c.clientSecrets, shared('signed-secret')] } : c));
    const auth = await authenticator();
    const r = await refusal(auth.authenticateClient(source({ client_id: 'signed', client_secret: 'signed-secret' })));
    expect(r).toMatchObject({ status: 401, body: DENIED });
    expect(r.logDetail).toBe('client_secret_post for "signed": client_secret_post is not in the client\'s tokenEndpointAuthMethods (private_key_jwt)');
  });

  it('refuses an assertion of an unsupported type, naming nothing to the caller', async () => {
    const auth = await authenticator();
    const r = await refusal(auth.authenticateClient(source({ client_assertion_type: 'urn:other', client_assertion: 'x.y.z' })));
    expect(r).toMatchObject({ status: 401, body: DENIED });
  });
});

describe('public clients and missing credentials', () => {
  it('lets a public client in with its client_id alone (method none)', async () => {
    const auth = await authenticator();
    const result = await auth.authenticateClient(source({ client_id: 'spa' }));
    expect(result).toMatchObject({ client: { clientId: 'spa' }, method: 'none' });
  });

  it('refuses a confidential client that sent only its client_id', async () => {
    const auth = await authenticator();
    const r = await refusal(auth.authenticateClient(source({ client_id: 'web' })));
    expect(r).toMatchObject({ status: 401, body: DENIED, logDetail: 'no credentials for client "web"' });
    expect(events).toEqual([expect.objectContaining({ type: 'client.authentication_failed', clientId: 'web', method: 'none' })]);
  });

  it('refuses a request with no credentials at all', async () => {
    const auth = await authenticator();
    const r = await refusal(auth.authenticateClient(source()));
    expect(r).toMatchObject({ status: 401, body: DENIED, logDetail: 'no client credentials' });
  });
});

describe('several secrets per client, and expiry', () => {
  it('accepts any of the unexpired secrets', async () => {
    const auth = await authenticator();
    for (const secret of ['current-secret', 'next-secret']) {
      expect((await auth.authenticateClient(source({}, basic('rotating', secret)))).client.clientId).toBe('rotating');
    }
  });

  it('refuses an expired secret and raises client.expired_secret_used, an alarm for a missed rotation', async () => {
    const auth = await authenticator();
    const r = await refusal(auth.authenticateClient(source({}, basic('rotating', 'old-secret'))));
    expect(r).toMatchObject({ status: 401, body: DENIED });
    expect(r.logDetail).toBe('client_secret_basic for "rotating": secret does not match any of 2 shared secret(s); the secret presented is one that has expired');
    expect(events.map((e) => e.type)).toEqual(['client.authentication_failed', 'client.expired_secret_used']);
    expect(events[1]).toMatchObject({ clientId: 'rotating', method: 'client_secret_basic', endpoint: 'token' });
    expect(JSON.stringify(events)).not.toContain('old-secret');
  });

  it('stops accepting a secret at its expiry time', async () => {
    const auth = await authenticator();
    await auth.authenticateClient(source({}, basic('rotating', 'current-secret')));
    clock.advance(DAY / 1000);
    const r = await refusal(auth.authenticateClient(source({}, basic('rotating', 'current-secret'))));
    expect(r).toMatchObject({ status: 401, body: DENIED });
    expect(events.at(-1)).toMatchObject({ type: 'client.expired_secret_used', clientId: 'rotating' });
    // The secret that never expires still works.
    await auth.authenticateClient(source({}, basic('rotating', 'next-secret')));
  });

  it('does not raise the expired alarm for a plain wrong secret', async () => {
    const auth = await authenticator();
    await refusal(auth.authenticateClient(source({}, basic('rotating', 'never-was-a-secret'))));
    expect(events.map((e) => e.type)).toEqual(['client.authentication_failed']);
  });
});

describe('throttle', () => {
  it('answers 429 temporarily_unavailable with Retry-After after repeated failures, even to the right secret', async () => {
    const auth = await authenticator({ throttle: true });
    for (let i = 0; i < 2; i++) await refusal(auth.authenticateClient(source({}, basic('web', `wrong-${i}`))));
    const r = await refusal(auth.authenticateClient(source({}, basic('web', 'web-secret'))));
    expect(r.status).toBe(429);
    expect(r.body.error).toBe('temporarily_unavailable');
    expect(Number(r.headers['Retry-After'])).toBeGreaterThan(0);
  });

  it('does not hold back the same client calling from another address', async () => {
    const auth = await authenticator({ throttle: true });
    for (let i = 0; i < 2; i++) await refusal(auth.authenticateClient(source({}, basic('web', `wrong-${i}`))));
    const result = await auth.authenticateClient(source({}, basic('web', 'web-secret'), 'token', '10.0.0.8'));
    expect(result.client.clientId).toBe('web');
  });

  it('holds back an address that sprays failures over many client ids, and only that address', async () => {
    const auth = await authenticator({ throttle: true });
    for (let i = 0; i < 5; i++) await refusal(auth.authenticateClient(source({}, basic(`guess-${i}`, 'x'))));
    expect((await refusal(auth.authenticateClient(source({}, basic('web', 'web-secret'))))).status).toBe(429);
    expect((await auth.authenticateClient(source({}, basic('web', 'web-secret'), 'token', '10.0.0.8'))).client.clientId).toBe('web');
  });

  it('lets the caller in again once the back-off has passed, and a success forgets the failures', async () => {
    const auth = await authenticator({ throttle: true });
    for (let i = 0; i < 2; i++) await refusal(auth.authenticateClient(source({}, basic('web', `wrong-${i}`))));
    clock.advance(61);
    await auth.authenticateClient(source({}, basic('web', 'web-secret')));
    // One more failure after the reset is below the threshold again: no back-off.
    await refusal(auth.authenticateClient(source({}, basic('web', 'wrong-again'))));
    expect((await auth.authenticateClient(source({}, basic('web', 'web-secret')))).client.clientId).toBe('web');
  });
});

describe('API resources (introspection)', () => {
  it('authenticates an API resource with its own secret', async () => {
    const auth = await authenticator();
    const result = await auth.authenticateApiResource(source({}, basic('orders-api', 'api-secret'), 'introspection'));
    expect(result).toMatchObject({ apiResource: { name: 'orders-api' }, method: 'client_secret_basic' });
    expect(events).toEqual([expect.objectContaining({ type: 'api.authenticated', apiResource: 'orders-api', method: 'client_secret_basic' })]);
  });

  it("tells a client's developer that introspection takes an API resource's credentials; the log says it was a client", async () => {
    const auth = await authenticator();
    const r = await refusal(auth.authenticateApiResource(source({}, basic('web', 'web-secret'), 'introspection')));
    expect(r).toMatchObject({
      status: 401,
      body: { error: 'invalid_client', error_description: "API resource authentication failed: introspection takes an API resource's name and secret, not a client's." },
    });
    expect(r.logDetail).toBe('client_secret_basic for "web": a client, not an API resource');
    expect(events).toEqual([expect.objectContaining({ type: 'api.authentication_failed', apiResource: 'web', method: 'client_secret_basic' })]);
  });

  it('answers a wrong API secret with the same text as an unknown name', async () => {
    const auth = await authenticator();
    const wrong = await refusal(auth.authenticateApiResource(source({}, basic('orders-api', 'nope'), 'introspection')));
    const unknown = await refusal(auth.authenticateApiResource(source({}, basic('who', 'nope'), 'introspection')));
    expect(wrong.body).toEqual(unknown.body);
  });
});
