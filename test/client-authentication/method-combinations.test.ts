/**
 * Every parser against every validator of the first-party plugins, through the composed steps with
 * plain values: the shared-secret plugin's Basic header and form body, the private-key-jwt
 * plugin's assertion, each against a client holding shared secrets, keys, or both. A method
 * authenticates exactly when the client holds a secret its validator judges; with the throttle
 * engaged even the right credentials wait; with tracing on, a span names the client and method.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Span } from '@opentelemetry/api';
import privateKeyJwt from '../../plugins/private-key-jwt/index.js';
import sharedSecret from '../../plugins/shared-secret/index.js';
import { createClientAuthenticator } from '../../src/client-authentication/client-authenticator.js';
import { traced } from '../../src/client-authentication/trace-authentication.js';
import type { AuthenticationSource, ClientAuthenticator } from '../../src/client-authentication/types.js';
import { createAuthThrottle } from '../../src/throttling/auth-throttle.js';
import { OAuthError } from '../../src/oauth/errors.js';
import type { Client, Secret } from '../../src/sdk/index.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { tracingOff, type Tracing } from '../../src/tracing/tracing.js';
import { JWT_BEARER, NOW, claimsFor, jwkSecret, makeClient, makeDeps, makeKey, sign, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const shared = (plain: string): Secret => ({ type: 'SharedSecret', value: hashSecret(plain), description: undefined, expiresAt: undefined });
const basicHeader = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const at = (params: Record<string, string>, authorization?: string): AuthenticationSource =>
  ({ params: new Map(Object.entries(params)), authorization, endpoint: 'token', remoteAddress: '10.0.0.7' });

let key: TestKey;
let clients: Client[];
beforeAll(async () => {
  key = await makeKey('P-256');
  clients = [
    makeClient('holds-shared', [shared('s3cret')]),
    makeClient('holds-key', [jwkSecret(key)]),
    makeClient('holds-both', [shared('s3cret'), jwkSecret(key)]),
  ];
});

async function authenticator(options: { throttle?: boolean; tracing?: Tracing } = {}): Promise<ClientAuthenticator> {
  const jwtDeps = makeDeps({ clients, now: () => NOW });
  const secretDeps = { ...jwtDeps, options: {}, pluginOptions: {} };
  return createClientAuthenticator({
    clients: new Map(clients.map((c) => [c.clientId, c])),
    apiResources: new Map(),
    secretParsers: [
      ...(await Promise.all((sharedSecret.secretParsers ?? []).map((f) => f(secretDeps)))),
      ...(await Promise.all((privateKeyJwt.secretParsers ?? []).map((f) => f(jwtDeps)))),
    ],
    secretValidators: [
      ...(await Promise.all((sharedSecret.secretValidators ?? []).map((f) => f(secretDeps)))),
      ...(await Promise.all((privateKeyJwt.secretValidators ?? []).map((f) => f(jwtDeps)))),
    ],
    clock: { now: () => NOW },
    throttle: options.throttle ? createAuthThrottle({ pairThreshold: 2, addressThreshold: 5, maxDelay: 60, window: 900 }) : undefined,
    tracing: options.tracing,
  });
}

const methods: Record<string, (id: string) => Promise<AuthenticationSource>> = {
  client_secret_basic: async (id) => at({}, basicHeader(id, 's3cret')),
  client_secret_post: async (id) => at({ client_id: id, client_secret: 's3cret' }),
  private_key_jwt: async (id) => at({ client_assertion_type: JWT_BEARER, client_assertion: await sign(key, 'ES256', claimsFor(id)) }),
};

describe('every parser against every validator', () => {
  const table: [method: string, client: string, authenticates: boolean][] = [
    ['client_secret_basic', 'holds-shared', true], ['client_secret_basic', 'holds-key', false], ['client_secret_basic', 'holds-both', true],
    ['client_secret_post', 'holds-shared', true], ['client_secret_post', 'holds-key', false], ['client_secret_post', 'holds-both', true],
    ['private_key_jwt', 'holds-shared', false], ['private_key_jwt', 'holds-key', true], ['private_key_jwt', 'holds-both', true],
  ];

  it.each(table)('%s for the client %s authenticates: %s', async (method, clientId, authenticates) => {
    const auth = await authenticator();
    const outcome = await auth.authenticateClient(await methods[method]!(clientId)).then((r) => r, (e: unknown) => e as OAuthError);
    if (authenticates) {
      expect(outcome).toMatchObject({ client: { clientId }, method });
    } else {
      expect(outcome).toBeInstanceOf(OAuthError);
      expect((outcome as OAuthError).toJSON()).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
      expect((outcome as OAuthError).logDetail).toBe(`${method} for "${clientId}": no secret of a fitting type`);
    }
  });
});

describe('with the throttle engaged', () => {
  it('answers 429 with Retry-After even to the right secret, after repeated failures from one address', async () => {
    const auth = await authenticator({ throttle: true });
    for (let i = 0; i < 3; i++) await auth.authenticateClient(at({}, basicHeader('holds-shared', 'guess'))).catch(() => undefined);
    const err = await auth.authenticateClient(at({}, basicHeader('holds-shared', 's3cret'))).then(() => undefined, (e: unknown) => e as OAuthError);
    expect([err?.status, err?.code]).toEqual([429, 'temporarily_unavailable']);
    expect(err?.headers['Retry-After']).toMatch(/^\d+$/);
  });
});

describe('with tracing on', () => {
  it('wraps each authentication in a span naming the client and its method, never the secret', async () => {
    const spans: { name: string; attributes: Record<string, unknown> }[] = [];
    const tracing: Tracing = {
      ...tracingOff,
      enabled: true,
      span: async (name, attributes, fn) => {
        const record = { name, attributes: { ...attributes } };
        spans.push(record);
        return fn({ setAttributes: (a: Record<string, unknown>) => Object.assign(record.attributes, a) } as unknown as Span);
      },
    };
    const auth = await authenticator({ tracing });
    await auth.authenticateClient(at({}, basicHeader('holds-shared', 's3cret')));
    expect(spans).toEqual([{ name: 'client_authentication', attributes: { 'svc.endpoint': 'token', 'oauth.client_id': 'holds-shared', 'oauth.client_auth_method': 'client_secret_basic' } }]);
  });

  it('hands back the authenticator itself when tracing is off: no wrapper on the hot path', () => {
    const plain: ClientAuthenticator = { authenticateClient: () => Promise.reject(new Error('unused')), authenticateApiResource: () => Promise.reject(new Error('unused')) };
    expect(traced(plain, tracingOff)).toBe(plain);
    expect(traced(plain, { ...tracingOff, enabled: true })).not.toBe(plain);
  });
});
