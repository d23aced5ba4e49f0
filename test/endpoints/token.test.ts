/**
 * The token endpoint's steps with plain values, in their order (RFC 6749 §3.2, §5.2): the grant
 * type, client authentication, whether the client may use the grant, the scopes, the grant, the
 * tokens, and the commit that spends a one-time grant. Real client authentication (the
 * shared-secret plugin's parts), a real issuer with an ES256 key and a memory store.
 */
import { jwtVerify } from 'jose';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBasicParser } from '../../plugins/shared-secret/basic-parser.js';
import { createHashedSecretValidator } from '../../plugins/shared-secret/hashed-secret-validator.js';
import { createPostBodyParser } from '../../plugins/shared-secret/post-body-parser.js';
import { resolveConfig } from '../../src/config/resolve.js';
import type { DpopProofValidator } from '../../src/sender-binding/dpop-proof-validator.js';
import type { FormRequest } from '../../src/endpoints/form-request.js';
import { createTokenEndpoint } from '../../src/endpoints/token.js';
import { createEventService } from '../../src/events/event-service.js';
import { createClientCredentialsGrant } from '../../src/grants/client-credentials.js';
import { createClientAuthenticator } from '../../src/client-authentication/client-authenticator.js';
import { AuthorizationPending, InvalidGrant, OAuthError } from '../../src/oauth/errors.js';
import { createIdTokenIssuer } from '../../src/oauth/id-token-issuer.js';
import type { SigningKey } from '../../src/oauth/keys/signing-key.js';
import { createRefreshTokenService } from '../../src/oauth/refresh-tokens.js';
import { createTokenIssuer } from '../../src/oauth/token-issuer.js';
import type { ExtensionGrantValidator, GrantContext, Logger, RaisedEvent, ValidatedTokenRequest } from '../../src/sdk/index.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { keyRingOf, signingKeys } from '../oauth/signing-keys.js';

const ISSUER = 'https://issuer.example';
const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
const MAGIC = 'urn:test:grant-type:magic';

const config = resolveConfig({
  issuer: ISSUER,
  apiScopes: [{ name: 'api.read' }, { name: 'api.write' }],
  apiResources: [{ name: 'https://api.example', scopes: ['api.read', 'api.write'] }],
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  clients: [
    { clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials', MAGIC], allowedScopes: ['api.read'] },
    { clientId: 'other', clientSecrets: [{ value: hashSecret('other-secret') }], allowedGrantTypes: [MAGIC], allowedScopes: ['api.read'] },
    { clientId: 'bound', clientSecrets: [{ value: hashSecret('bound-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api.read'], requireDPoP: true },
  ],
}, '/');

const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

interface Line { level: string; msg: string | undefined }
let lines: Line[];
const logger: Logger = {
  debug: (_o, msg) => void lines.push({ level: 'debug', msg }),
  info: (_o, msg) => void lines.push({ level: 'info', msg }),
  warn: (_o, msg) => void lines.push({ level: 'warn', msg }),
  error: (_o, msg) => void lines.push({ level: 'error', msg }),
  child: () => logger,
};

let keys: Map<string, SigningKey>;
beforeAll(async () => {
  keys = await signingKeys(['ES256', 'RS256']);
});

/** What the magic grant did last: the request it saw; what it answers next: set per test. */
let seenRequest: ValidatedTokenRequest | undefined;
let magic: (ctx: GrantContext) => void | Promise<void>;
let redeemed: string[];
const magicGrant: ExtensionGrantValidator = {
  grantType: MAGIC,
  validate: (ctx) => {
    seenRequest = ctx.request;
    return magic(ctx);
  },
  redeemed: (success) => void redeemed.push(success.consumes ?? ''),
};

let store: Store;
let events: RaisedEvent[];
let endpoint: ReturnType<typeof createTokenEndpoint>;

beforeEach(() => {
  lines = [];
  events = [];
  redeemed = [];
  seenRequest = undefined;
  magic = (ctx) => void (ctx.result = { subject: { kind: 'client', id: ctx.request.client.clientId } });
  const clock = { now: () => NOW };
  store = createMemoryStore(clock);
  const eventService = createEventService(logger, clock.now);
  eventService.attach([{ handle: (e) => void events.push(e) }]);
  const keyRing = keyRingOf(keys);
  const dpop: DpopProofValidator = {
    algorithms: ['ES256'], nonceRequired: false, currentNonce: async () => undefined,
    // A fake proof check: any DPoP header is a valid proof of key "jkt-of-proof"; spending it records nothing.
    verify: async (request) => (request.headers === undefined ? undefined : { summary: { jkt: 'jkt-of-proof', ath: undefined }, spend: async () => undefined }),
    check: async (request) => (request.headers === undefined ? undefined : { jkt: 'jkt-of-proof', ath: undefined }),
  };
  endpoint = createTokenEndpoint({
    clientAuthenticator: createClientAuthenticator({
      clients: new Map(config.clients.map((c) => [c.clientId, c])),
      apiResources: new Map(),
      secretParsers: [createBasicParser(), createPostBodyParser()],
      secretValidators: [createHashedSecretValidator({ config })],
      clock,
      events: eventService,
    }),
    grants: new Map([['client_credentials', createClientCredentialsGrant({ config })], [MAGIC, magicGrant]]),
    tokenIssuer: createTokenIssuer({
      config, keyRing, store, clock,
      refreshTokens: createRefreshTokenService({ store, clock, logger }),
      idTokens: createIdTokenIssuer({ config, keyRing, clock, resourceOwnerValidator: { validate: async () => undefined, findBySubject: async () => undefined } }),
    }),
    scopeCatalog: { apiScopes: new Set(['api.read', 'api.write']), identityScopes: new Set(['openid']) },
    store,
    clock,
    logger,
    events: eventService,
    credentialParameters: new Set(['client_secret']),
    dpop,
    tokenUrl: `${ISSUER}/connect/token`,
  });
});

function post(params: Record<string, string>, authorization?: string, extra: Partial<FormRequest> = {}): FormRequest {
  return { params: new Map(Object.entries(params)), authorization, remoteAddress: '10.0.0.1', requestId: 'req-9', ...extra };
}

async function refusal(attempt: Promise<unknown>) {
  const err = await attempt.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(OAuthError);
  const e = err as OAuthError;
  return { status: e.status, ...e.toJSON() };
}

const failures = () => events.filter((e) => e.type === 'token.failed');

describe('checkGrantType', () => {
  it('refuses a request without grant_type with invalid_request, before authenticating anyone', async () => {
    expect(await refusal(endpoint(post({}, basic('m2m', 'wrong'))))).toEqual({ status: 400, error: 'invalid_request', error_description: 'The grant_type parameter is missing.' });
    expect(events.map((e) => e.type)).toEqual(['token.failed']);
    expect(failures()[0]).toMatchObject({ clientId: undefined, grantType: undefined, error: 'invalid_request', requestId: 'req-9' });
  });

  it('refuses an unknown grant type with unsupported_grant_type, even with wrong credentials', async () => {
    expect(await refusal(endpoint(post({ grant_type: 'password' }, basic('m2m', 'wrong')))))
      .toEqual({ status: 400, error: 'unsupported_grant_type', error_description: 'The grant type is not supported.' });
    expect(failures()[0]).toMatchObject({ grantType: 'password', error: 'unsupported_grant_type' });
  });
});

describe('authenticateClient', () => {
  it('refuses wrong credentials with invalid_client (401) and the Basic challenge', async () => {
    const err = await endpoint(post({ grant_type: 'client_credentials' }, basic('m2m', 'wrong'))).catch((e: unknown) => e as OAuthError);
    expect(err).toMatchObject({ code: 'invalid_client', status: 401, headers: { 'WWW-Authenticate': 'Basic realm="svc"' } });
    expect(events.map((e) => e.type)).toEqual(['client.authentication_failed', 'token.failed']);
  });

  it('refuses a request with no credentials at all', async () => {
    expect((await refusal(endpoint(post({ grant_type: 'client_credentials' })))).error).toBe('invalid_client');
  });
});

describe('the client may use the grant', () => {
  it('refuses a grant type the client is not allowed with unauthorized_client, naming the client in the event', async () => {
    expect(await refusal(endpoint(post({ grant_type: 'client_credentials' }, basic('other', 'other-secret')))))
      .toEqual({ status: 400, error: 'unauthorized_client', error_description: 'The client is not allowed to use this grant type.' });
    expect(failures()[0]).toMatchObject({ clientId: 'other', grantType: 'client_credentials', error: 'unauthorized_client' });
  });

  it('refuses a client that must send a DPoP proof and sent none', async () => {
    expect(await refusal(endpoint(post({ grant_type: 'client_credentials' }, basic('bound', 'bound-secret')))))
      .toEqual({ status: 400, error: 'invalid_request', error_description: 'A DPoP proof is required for this client.' });
  });

  it('binds the token to the DPoP proof key when one came', async () => {
    const response = await endpoint(post({ grant_type: 'client_credentials' }, basic('bound', 'bound-secret'), { dpop: ['proof'] }));
    expect(response.token_type).toBe('DPoP');
    const { payload } = await jwtVerify(response.access_token, keys.get('ES256')!.publicKey, { currentDate: new Date(NOW) });
    expect(payload.cnf).toEqual({ jkt: 'jkt-of-proof' });
  });

  it('refuses a scope the client is not allowed with invalid_scope', async () => {
    expect(await refusal(endpoint(post({ grant_type: 'client_credentials', scope: 'api.write' }, basic('m2m', 'm2m-secret')))))
      .toEqual({ status: 400, error: 'invalid_scope', error_description: 'The client is not allowed a requested scope.' });
  });
});

describe('run the grant and issue', () => {
  it('issues a signed access token for client_credentials and raises token.issued', async () => {
    const response = await endpoint(post({ grant_type: 'client_credentials', scope: 'api.read' }, basic('m2m', 'm2m-secret')));
    expect(response).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'api.read' });
    const { payload } = await jwtVerify(response.access_token, keys.get('ES256')!.publicKey, { issuer: ISSUER, audience: 'https://api.example', currentDate: new Date(NOW) });
    expect(payload).toMatchObject({ sub: 'm2m', client_id: 'm2m', scope: 'api.read' });
    expect(events.map((e) => e.type)).toEqual(['client.authenticated', 'token.issued']);
    expect(events[1]).toMatchObject({ clientId: 'm2m', grantType: 'client_credentials', subject: 'm2m', scopes: ['api.read'], requestId: 'req-9' });
  });

  it("gives the grant every parameter except the client's credentials", async () => {
    await endpoint(post({ grant_type: MAGIC, client_id: 'm2m', client_secret: 'm2m-secret', word: 'please' }));
    expect(seenRequest?.raw).toEqual(new Map([['grant_type', MAGIC], ['client_id', 'm2m'], ['word', 'please']]));
    expect(seenRequest).toMatchObject({ grantType: MAGIC, requestedScopes: ['api.read'], scopeRequested: false, remoteAddress: '10.0.0.1' });
  });

  it('answers invalid_grant when the grant decides nothing', async () => {
    magic = () => {};
    expect((await refusal(endpoint(post({ grant_type: MAGIC }, basic('m2m', 'm2m-secret'))))).error).toBe('invalid_grant');
    expect(failures()[0]).toMatchObject({ clientId: 'm2m', grantType: MAGIC, error: 'invalid_grant' });
  });

  it('answers server_error when the grant throws, and logs it', async () => {
    magic = () => {
      throw new Error('bug in the grant');
    };
    expect(await refusal(endpoint(post({ grant_type: MAGIC }, basic('m2m', 'm2m-secret'))))).toMatchObject({ status: 500, error: 'server_error' });
    expect(lines).toContainEqual({ level: 'error', msg: 'grant validator threw' });
    expect(failures()[0]).toMatchObject({ error: 'server_error' });
  });

  it('raises no token.failed event for a device polling answer (authorization_pending)', async () => {
    magic = () => {
      throw new AuthorizationPending();
    };
    expect((await refusal(endpoint(post({ grant_type: MAGIC }, basic('m2m', 'm2m-secret'))))).error).toBe('authorization_pending');
    expect(failures()).toEqual([]);
  });
});

describe('commit: a one-time grant is spent once', () => {
  beforeEach(async () => {
    await store.add({ key: 'one-time-1', type: 'test_code', clientId: 'm2m', subjectId: 'm2m', sessionId: undefined, createdAt: NOW, expiresAt: NOW + 60_000, consumedAt: undefined, data: '{}' });
    magic = (ctx) => void (ctx.result = { subject: { kind: 'client', id: 'm2m' }, consumes: 'one-time-1' });
  });

  it('issues once, tells the grant it was redeemed, and answers the second redemption invalid_grant', async () => {
    await endpoint(post({ grant_type: MAGIC }, basic('m2m', 'm2m-secret')));
    expect(redeemed).toEqual(['one-time-1']);
    expect(await refusal(endpoint(post({ grant_type: MAGIC }, basic('m2m', 'm2m-secret')))))
      .toEqual({ status: 400, error: 'invalid_grant', error_description: 'The grant has already been used.' });
    expect(redeemed).toEqual(['one-time-1']);
  });

  it("answers a lost race with the grant's own spent rule", async () => {
    magicGrant.spent = async () => new InvalidGrant('The code was used twice; its tokens are revoked.');
    try {
      await endpoint(post({ grant_type: MAGIC }, basic('m2m', 'm2m-secret')));
      expect((await refusal(endpoint(post({ grant_type: MAGIC }, basic('m2m', 'm2m-secret'))))).error_description)
        .toBe('The code was used twice; its tokens are revoked.');
    } finally {
      delete magicGrant.spent;
    }
  });
});
