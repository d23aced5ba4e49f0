/**
 * A client's checklist with plain steps: a public client by its `client_id` alone, the claimed
 * `client_id` against the credentials, the throttle before the record is read, a disabled or
 * unknown client, pinned methods (RFC 7591 §2), then the secret. An API resource's list beside it.
 */
import { describe, expect, it } from 'vitest';
import { createApiResourceAuthentication } from '../../src/client-authentication/authenticate-api-resource.js';
import { createClientAuthentication } from '../../src/client-authentication/authenticate-client.js';
import { createCredentialParser } from '../../src/client-authentication/parse-credentials.js';
import { indexSecretValidators } from '../../src/client-authentication/secret-validator-index.js';
import { createAttemptThrottle } from '../../src/client-authentication/throttle-attempt.js';
import type { Attempt } from '../../src/client-authentication/types.js';
import { createSecretValidation } from '../../src/client-authentication/validate-secret.js';
import { OAuthError } from '../../src/oauth/errors.js';
import type { ApiResource, Client } from '../../src/sdk/index.js';
import { client, NOW, parser, secret, source, validator } from './fakes.js';

const clients = new Map<string, Client>([
  ['web', client('web', [secret('SharedSecret', 's3cret')])],
  ['spa', client('spa', [], { requireClientSecret: false })],
  ['pinned-spa', client('pinned-spa', [], { requireClientSecret: false, tokenEndpointAuthMethods: ['private_key_jwt'] })],
  ['pinned', client('pinned', [secret('SharedSecret', 's3cret')], { tokenEndpointAuthMethods: ['private_key_jwt'] })],
]);
const disabled = new Set(['gone']);
const directory = { isDisabled: (_kind: string, id: string) => disabled.has(id) };
const validators = indexSecretValidators([validator('SharedSecret', 'SharedSecret')]);
const steps = {
  clients,
  directory,
  parseCredentials: createCredentialParser([parser('client_secret_post', 'SharedSecret', 'client_secret')], validators.judges),
  validateSecret: createSecretValidation(validators, { now: () => NOW }),
  throttle: createAttemptThrottle(undefined, { now: () => NOW }),
};
const authenticate = createClientAuthentication(steps);

async function run(params: Record<string, string>) {
  const attempt: Attempt = {};
  const result = await authenticate(source(params), attempt).then((r) => r, (e: unknown) => e as OAuthError);
  return { result, attempt };
}

describe("a client's authentication", () => {
  it('authenticates with the secret, and notes the id and method in the attempt', async () => {
    const { result, attempt } = await run({ client_secret: 'web:s3cret' });
    expect(result).toEqual({ client: clients.get('web'), method: 'client_secret_post' });
    expect(attempt).toMatchObject({ id: 'web', method: 'client_secret_post' });
  });

  it('lets a public client in by its client_id alone, as method none (RFC 6749 §2.1)', async () => {
    expect((await run({ client_id: 'spa' })).result).toEqual({ client: clients.get('spa'), method: 'none' });
  });

  it.each([
    ['a confidential client without credentials', { client_id: 'web' }, 'no credentials for client "web"'],
    ['no credentials and no client_id', {}, 'no client credentials'],
    ['a client_id that is not the one authenticated', { client_id: 'spa', client_secret: 'web:s3cret' }, 'client_id "spa" does not match the authenticated client'],
    ['an unknown client', { client_secret: 'nobody:x' }, 'client_secret_post: unknown client'],
    ['a disabled client with credentials', { client_secret: 'gone:x' }, 'client_secret_post for "gone": the client is disabled'],
    ['a disabled client without credentials', { client_id: 'gone' }, 'none for "gone": the client is disabled'],
    ['a method the client did not pin', { client_secret: 'pinned:s3cret' }, `client_secret_post for "pinned": client_secret_post is not in the client's tokenEndpointAuthMethods (private_key_jwt)`],
    ['none for a public client that pinned another method', { client_id: 'pinned-spa' }, `none for "pinned-spa": none is not in the client's tokenEndpointAuthMethods (private_key_jwt)`],
    ['a wrong secret', { client_secret: 'web:wrong' }, 'client_secret_post for "web": SharedSecret: no match'],
  ])('refuses %s with invalid_client; the log says why', async (_case, params, logDetail) => {
    const { result } = await run(params);
    expect(result).toBeInstanceOf(OAuthError);
    expect((result as OAuthError).toJSON()).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    expect((result as OAuthError).logDetail).toBe(logDetail);
  });

  it('marks a disabled client in the attempt, for its alarm', async () => {
    expect((await run({ client_secret: 'gone:x' })).attempt.disabled).toBe(true);
  });

  it('checks the throttle before reading the client record, so a caller in back-off learns nothing and costs no hash', async () => {
    const order: string[] = [];
    const watched = createClientAuthentication({
      ...steps,
      clients: { get: (id) => (order.push('record'), clients.get(id)), has: (id) => clients.has(id) },
      throttle: { check: () => { order.push('throttle'); throw new OAuthError('temporarily_unavailable', 'wait', { status: 429 }); }, succeeded: () => undefined, failed: () => undefined },
    });
    await expect(watched(source({ client_secret: 'web:s3cret' }), {})).rejects.toMatchObject({ status: 429 });
    // The parser's look at the holder's secrets (for a certificate) comes only from connection parsers.
    expect(order).toEqual(['throttle']);
  });
});

describe("an API resource's authentication", () => {
  const apiResources = new Map<string, ApiResource>([['orders', { name: 'orders', scopes: ['orders.read'], secrets: [secret('SharedSecret', 'api-secret')] }]]);
  const authenticate = createApiResourceAuthentication({ ...steps, apiResources });
  const refusal = (params: Record<string, string>) => authenticate(source(params), {}).then(() => undefined, (e: unknown) => e as OAuthError);

  it('authenticates with its own secret', async () => {
    expect(await authenticate(source({ client_secret: 'orders:api-secret' }), {})).toEqual({ apiResource: apiResources.get('orders'), method: 'client_secret_post' });
  });

  it("answers one text for a client's credentials and a wrong secret; the log tells them apart", async () => {
    const asClient = await refusal({ client_secret: 'web:s3cret' });
    const wrong = await refusal({ client_secret: 'orders:wrong' });
    expect(asClient?.toJSON()).toEqual(wrong?.toJSON());
    expect(asClient?.logDetail).toBe('client_secret_post for "web": a client, not an API resource');
    expect((await refusal({}))?.logDetail).toBe('no API credentials');
  });
});
