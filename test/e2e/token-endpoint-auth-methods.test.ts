/**
 * Issue 14, point 6: a client can pin the authentication methods it may use
 * (`tokenEndpointAuthMethods`, RFC 7591 §2 `token_endpoint_auth_method` as a list). A client
 * holding both a key and a leftover shared secret then cannot be downgraded to the secret.
 * Every refusal is the same 401 `invalid_client` as any failed authentication; the log says
 * which rule. Without the field, any method the client has secrets for works, as before.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { makeKey, publicJwk, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const failed = { error: 'invalid_client', error_description: 'Client authentication failed.' };

let key: TestKey;
let server: TestServer;

const client = (clientId: string, extra: Partial<ClientConfig> = {}): ClientConfig => ({
  clientId,
  clientSecrets: [{ value: hashSecret(`${clientId}-secret`) }, { type: 'JsonWebKey', value: JSON.stringify(publicJwk(key)) }],
  allowedGrantTypes: ['client_credentials'],
  allowedScopes: ['api1.read'],
  ...extra,
});

beforeAll(async () => {
  key = await makeKey('P-256');
  server = await startServer({
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
    clients: [
      client('key-only', { tokenEndpointAuthMethods: ['private_key_jwt'] }),
      client('basic-only', { tokenEndpointAuthMethods: ['client_secret_basic'] }),
      client('either'),
      // A user's grant: a public client may not have client_credentials (issue 33).
      {
        clientId: 'public-pinned', requireClientSecret: false, tokenEndpointAuthMethods: ['none'],
        allowedGrantTypes: ['password'], allowedScopes: ['api1.read'],
      },
    ],
    users: [{ subjectId: 'sub-alice', username: 'alice', password: await hashPassword('alice-password', { ln: 4, r: 8, p: 1 }) }],
  });
});
afterAll(() => server?.close());

type Reply = Awaited<ReturnType<typeof postForm>>;
const tokenUrl = () => `${server.url}/connect/token`;
const grant = { grant_type: 'client_credentials' };

async function assertion(clientId: string): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: clientId, sub: clientId, aud: server.url, iat, exp: iat + 60, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256' }).sign(key.privateKey);
}

const withBasic = (clientId: string) => postForm(tokenUrl(), grant, { authorization: basic(clientId, `${clientId}-secret`) });
const withPost = (clientId: string) => postForm(tokenUrl(), { ...grant, client_id: clientId, client_secret: `${clientId}-secret` });
const withAssertion = async (clientId: string) =>
  postForm(tokenUrl(), { ...grant, client_assertion_type: JWT_BEARER, client_assertion: await assertion(clientId) });

function expectToken(reply: Reply): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  expect(reply.body.access_token).toEqual(expect.any(String));
}

function expectRefused(reply: Reply, detail: string): void {
  expect({ status: reply.status, body: reply.body }).toEqual({ status: 401, body: failed });
  const line = server.logs.find((l) => l.reqId === reply.headers.get('x-request-id') && l.msg === 'request rejected');
  expect(line?.detail).toContain(detail);
}

describe('tokenEndpointAuthMethods', () => {
  it('a client pinned to private_key_jwt authenticates with its key', async () => {
    expectToken(await withAssertion('key-only'));
  });

  it('a client pinned to private_key_jwt is refused with its leftover shared secret, by either method', async () => {
    expectRefused(await withBasic('key-only'), 'client_secret_basic is not in the client\'s tokenEndpointAuthMethods');
    expectRefused(await withPost('key-only'), 'client_secret_post is not in the client\'s tokenEndpointAuthMethods');
  });

  it('a client pinned to client_secret_basic is refused with the secret in the body, or a key', async () => {
    expectToken(await withBasic('basic-only'));
    expectRefused(await withPost('basic-only'), 'client_secret_post is not in the client\'s tokenEndpointAuthMethods');
    expectRefused(await withAssertion('basic-only'), 'private_key_jwt is not in the client\'s tokenEndpointAuthMethods');
  });

  it('a client without the field may use any method it has secrets for (unchanged)', async () => {
    expectToken(await withBasic('either'));
    expectToken(await withPost('either'));
    expectToken(await withAssertion('either'));
  });

  it('a public client pinned to none authenticates with client_id alone', async () => {
    expectToken(await postForm(tokenUrl(), { grant_type: 'password', username: 'alice', password: 'alice-password', client_id: 'public-pinned' }));
  });
});
