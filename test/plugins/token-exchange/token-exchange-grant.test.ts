/** plugins/token-exchange's grant (RFC 8693), called with plain deps. */
import { describe, expect, it } from 'vitest';
import { createTokenExchangeGrant } from '../../../plugins/token-exchange/token-exchange-grant.js';
import tokenExchangePlugin from '../../../plugins/token-exchange/index.js';
import { checkConfig } from '../../../src/config/load.js';
import { accessToken, fakeTokenValidator, grantContext, settle, recordingLogger } from '../../fixtures/grant-plugins/grant-context.js';

const grantType = 'urn:ietf:params:oauth:grant-type:token-exchange';
const at = 'urn:ietf:params:oauth:token-type:access_token';

const config = checkConfig(
  {
    apiScopes: [{ name: 'api1.read' }, { name: 'backend.read' }],
    apiResources: [
      { name: 'api1', scopes: ['api1.read'] },
      { name: 'backend', scopes: ['backend.read'] },
    ],
    clients: [{
      clientId: 'exchanger', requireClientSecret: false, allowedGrantTypes: [grantType], allowedScopes: ['api1.read', 'backend.read'],
      allowedSubjectTokenAudiences: ['api1'],
    }],
  },
  process.cwd(),
);
const client = config.clients[0]!;

const tokens = {
  user: accessToken({ sub: 'alice', client_id: 'web', auth_time: 1_899_999_000 }),
  delegated: accessToken({ sub: 'alice', client_id: 'api1.client', auth_time: 1_899_999_000, act: { client_id: 'web' } }),
  service: accessToken({ sub: 'svc', client_id: 'svc' }),
  backend: accessToken({ sub: 'alice', client_id: 'backend-app', auth_time: 1_899_999_000, aud: 'backend' }),
  bound: accessToken({ sub: 'alice', client_id: 'web', auth_time: 1_899_999_000, cnf: { 'x5t#S256': 'partner' } }),
};

function setup() {
  const tokenValidator = fakeTokenValidator(tokens);
  const grant = createTokenExchangeGrant({ tokenValidator, config, logger: recordingLogger() });
  const run = async (raw: Record<string, string>, scopes = ['api1.read', 'backend.read'], certificateThumbprint?: string, resources: string[] = []) => {
    const ctx = grantContext(client, grantType, { grant_type: grantType, ...raw }, scopes, { certificateThumbprint, resources });
    await settle(grant, ctx);
    return ctx;
  };
  return { tokenValidator, grant, run };
}

const invalidRequest = (description: string) => ({ error: 'invalid_request', description });

describe('the token-exchange plugin', () => {
  it('is a plugin named like its folder, with the RFC 8693 grant type', () => {
    expect(tokenExchangePlugin.name).toBe('token-exchange');
    expect(tokenExchangePlugin.extensionGrants).toEqual([createTokenExchangeGrant]);
    expect(setup().grant.grantType).toBe(grantType);
  });

  it('impersonates: the subject token’s sub and auth_time, no act, issued_token_type in the response', async () => {
    const ctx = await setup().run({ subject_token: 'user', subject_token_type: at });
    expect(ctx.result).toEqual({ subject: { kind: 'user', id: 'alice', authTime: 1_899_999_000 }, claims: {} });
    expect(ctx.customResponse).toEqual({ issued_token_type: at });
  });

  it('keeps the subject token’s act when impersonating', async () => {
    const ctx = await setup().run({ subject_token: 'delegated', subject_token_type: at });
    expect(ctx.result).toMatchObject({ claims: { act: { client_id: 'web' } } });
  });

  it('carries no auth_time for a subject token that has none', async () => {
    const ctx = await setup().run({ subject_token: 'service', subject_token_type: at });
    expect(ctx.result).toEqual({ subject: { kind: 'client', id: 'svc' }, claims: {} });
  });

  it('delegates: act names the actor, with the subject token’s act nested', async () => {
    const { run, tokenValidator } = setup();
    const ctx = await run({ subject_token: 'delegated', subject_token_type: at, actor_token: 'service', actor_token_type: at });
    expect(tokenValidator.asked).toEqual(['delegated', 'service']);
    expect(ctx.result).toMatchObject({ subject: { id: 'alice' }, claims: { act: { sub: 'svc', client_id: 'svc', act: { client_id: 'web' } } } });
  });

  it('narrows the audience to audience and resource', async () => {
    expect((await setup().run({ subject_token: 'user', subject_token_type: at, audience: 'backend' })).result).toMatchObject({ audience: ['backend'] });
    // `resource` comes checked by the host (`request.resources`); the token is for every target.
    expect((await setup().run({ subject_token: 'user', subject_token_type: at, audience: 'backend' }, undefined, undefined, ['api1'])).result)
      .toMatchObject({ audience: ['api1', 'backend'] });
    expect((await setup().run({ subject_token: 'user', subject_token_type: at })).result).not.toHaveProperty('audience');
  });

  it.each([
    [{}, invalidRequest('The subject_token parameter is missing.')],
    [{ subject_token_type: at }, invalidRequest('The subject_token parameter is missing.')],
    [{ subject_token: 'user' }, invalidRequest('The subject_token_type parameter is missing.')],
    [{ subject_token: 'user', subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }, invalidRequest(`Unsupported subject_token_type; only ${at} is accepted.`)],
    [{ subject_token: 'user', subject_token_type: at, actor_token: 'service' }, invalidRequest('The actor_token_type parameter is missing.')],
    [{ subject_token: 'user', subject_token_type: at, actor_token_type: at }, invalidRequest('actor_token_type without actor_token.')],
    [{ subject_token: 'user', subject_token_type: at, actor_token: 'service', actor_token_type: 'urn:x:saml' }, invalidRequest(`Unsupported actor_token_type; only ${at} is accepted.`)],
    // RFC 8693 §2.2.2: an invalid subject_token or actor_token is invalid_request, not invalid_grant.
    [{ subject_token: 'forged', subject_token_type: at }, invalidRequest('The subject_token is invalid.')],
    [{ subject_token: 'user', subject_token_type: at, actor_token: 'forged', actor_token_type: at }, invalidRequest('The actor_token is invalid.')],
    // RFC 8693 §2.2.2: a subject_token unacceptable by policy is invalid_request (issue 14.1).
    [{ subject_token: 'backend', subject_token_type: at }, invalidRequest('The subject_token was not issued to an audience this client may exchange.')],
    [{ subject_token: 'user', subject_token_type: at, audience: 'payments' }, { error: 'invalid_target', description: 'The requested audience or resource is unknown or not covered by the requested scopes.' }],
  ])('answers %j with %j', async (raw: Record<string, string>, expected) => {
    const ctx = await setup().run(raw);
    expect(ctx.result).toEqual(expected);
    expect(ctx.customResponse).toEqual({});
  });

  it('answers invalid_target for an audience none of the requested scopes belong to', async () => {
    const ctx = await setup().run({ subject_token: 'user', subject_token_type: at, audience: 'api1' }, ['backend.read']);
    expect(ctx.result).toMatchObject({ error: 'invalid_target' });
  });

  it('never asks the token validator about a token whose type it refuses', async () => {
    const { run, tokenValidator } = setup();
    await run({ subject_token: 'user', subject_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' });
    expect(tokenValidator.asked).toEqual([]);
  });

  it('never lets a client exchange a subject token addressed elsewhere, even with an actor token', async () => {
    const ctx = await setup().run({ subject_token: 'backend', subject_token_type: at, actor_token: 'user', actor_token_type: at });
    expect(ctx.result).toEqual(invalidRequest('The subject_token was not issued to an audience this client may exchange.'));
  });
});

describe('the token-exchange plugin at start-up', () => {
  it('stops start-up for a client allowed token exchange that may exchange no audience, naming the field', () => {
    const bare = checkConfig(
      { apiScopes: [{ name: 'api1.read' }], clients: [{ clientId: 'exchanger', requireClientSecret: false, allowedGrantTypes: [grantType], allowedScopes: ['api1.read'] }] },
      process.cwd(),
    );
    expect(() => createTokenExchangeGrant({ tokenValidator: fakeTokenValidator({}), config: bare, logger: recordingLogger() })).toThrow(
      `clients[0].allowedSubjectTokenAudiences: client "exchanger" may use ${grantType} but lists no API resource whose tokens it may exchange; list the APIs it fronts, e.g. ["api1"]`,
    );
  });

  it('takes certificate-bound subject and actor tokens only from a request with that certificate (RFC 8705 §3): invalid_request otherwise (§2.2.2)', async () => {
    const { run } = setup();
    expect((await run({ subject_token: 'bound', subject_token_type: at }, undefined, 'partner')).result).toMatchObject({ subject: { kind: 'user', id: 'alice' } });
    expect((await run({ subject_token: 'bound', subject_token_type: at }, undefined, 'stranger')).result)
      .toEqual(invalidRequest('The subject_token is bound to a TLS client certificate this request does not present.'));
    expect((await run({ subject_token: 'user', subject_token_type: at, actor_token: 'bound', actor_token_type: at })).result)
      .toEqual(invalidRequest('The actor_token is bound to a TLS client certificate this request does not present.'));
  });
});
