/**
 * plugins/token-exchange over HTTP (RFC 8693; issue 5): impersonation, delegation with nested
 * `act`, token types, and `audience`/`resource` narrowing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import {
  accessClaims, accessTokenType, alice, baseConfig, delegate, tokenExchange, tokenRequest, userToken,
} from '../fixtures/grant-plugins/world.js';
import { handlePattern } from '../support/handle-pattern.js';

let server: TestServer;
beforeAll(async () => {
  // `resource=api1` names an API by its name, IdentityServer's way (RFC 8707 wants a URI).
  server = await startServer({ ...baseConfig, resourceIndicators: { acceptNames: true } });
});
afterAll(() => server.close());

const exchange = (params: Record<string, string>, clientId = 'exchanger') =>
  tokenRequest(server, clientId, { grant_type: tokenExchange, ...params });

async function clientToken(): Promise<string> {
  const res = await tokenRequest(server, 'm2m', { grant_type: 'client_credentials', scope: 'api1.read' });
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

const invalidRequest = (description: string) => ({ error: 'invalid_request', error_description: description });

describe('impersonation (subject_token only)', () => {
  it('issues the subject’s token to the exchanging client, with issued_token_type and no act', async () => {
    const user = await userToken(server);
    const res = await exchange({ subject_token: user.access_token, subject_token_type: accessTokenType, scope: 'backend.read' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'backend.read', issued_token_type: accessTokenType,
    });
    const claims = accessClaims(res.body.access_token);
    expect(claims).toMatchObject({
      sub: alice.subjectId, client_id: 'exchanger', scope: 'backend.read', aud: 'backend', auth_time: accessClaims(user.access_token).auth_time,
    });
    expect(claims).not.toHaveProperty('act');
  });

  it('keeps the act the subject token already had', async () => {
    const delegated = await delegate(server, (await userToken(server)).access_token);
    const res = await exchange({ subject_token: delegated.body.access_token as string, subject_token_type: accessTokenType, scope: 'backend.read' });
    expect(res.status).toBe(200);
    expect(accessClaims(res.body.access_token).act).toEqual({ client_id: 'web' });
  });

  it('accepts a reference subject token', async () => {
    const user = await userToken(server, { clientId: 'web-ref' });
    const res = await exchange({ subject_token: user.access_token, subject_token_type: accessTokenType, scope: 'backend.read' });
    expect(res.status).toBe(200);
    expect(accessClaims(res.body.access_token).sub).toBe(alice.subjectId);
  });
});

describe('delegation (subject_token and actor_token)', () => {
  it('names the actor in act', async () => {
    const user = await userToken(server);
    const res = await exchange({
      subject_token: user.access_token, subject_token_type: accessTokenType,
      actor_token: await clientToken(), actor_token_type: accessTokenType, scope: 'backend.read',
    });
    expect(res.status).toBe(200);
    expect(res.body.issued_token_type).toBe(accessTokenType);
    expect(accessClaims(res.body.access_token)).toMatchObject({ sub: alice.subjectId, client_id: 'exchanger', act: { sub: 'm2m', client_id: 'm2m' } });
  });

  it('nests the subject token’s own act inside the new one', async () => {
    const delegated = await delegate(server, (await userToken(server)).access_token);
    const res = await exchange({
      subject_token: delegated.body.access_token as string, subject_token_type: accessTokenType,
      actor_token: await clientToken(), actor_token_type: accessTokenType, scope: 'backend.read',
    });
    expect(res.status).toBe(200);
    expect(accessClaims(res.body.access_token).act).toEqual({ sub: 'm2m', client_id: 'm2m', act: { client_id: 'web' } });
  });
});

describe('request errors', () => {
  it('answers invalid_request when subject_token is missing', async () => {
    const res = await exchange({ subject_token_type: accessTokenType, scope: 'backend.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidRequest('The subject_token parameter is missing.'));
  });

  it('answers invalid_request when subject_token_type is missing', async () => {
    const res = await exchange({ subject_token: (await userToken(server)).access_token, scope: 'backend.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidRequest('The subject_token_type parameter is missing.'));
  });

  it.each([
    'urn:ietf:params:oauth:token-type:id_token',
    'urn:ietf:params:oauth:token-type:refresh_token',
    'urn:ietf:params:oauth:token-type:jwt',
    'urn:ietf:params:oauth:token-type:saml2',
  ])('answers invalid_request for subject_token_type %s', async (type) => {
    const res = await exchange({ subject_token: (await userToken(server)).access_token, subject_token_type: type, scope: 'backend.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidRequest(`Unsupported subject_token_type; only ${accessTokenType} is accepted.`));
  });

  it('answers invalid_request for an actor_token without actor_token_type', async () => {
    const user = await userToken(server);
    const res = await exchange({ subject_token: user.access_token, subject_token_type: accessTokenType, actor_token: await clientToken(), scope: 'backend.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidRequest('The actor_token_type parameter is missing.'));
  });

  it('answers invalid_request for an actor_token_type without actor_token', async () => {
    const user = await userToken(server);
    const res = await exchange({ subject_token: user.access_token, subject_token_type: accessTokenType, actor_token_type: accessTokenType, scope: 'backend.read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidRequest('actor_token_type without actor_token.'));
  });

  it('answers invalid_request for an unsupported actor_token_type', async () => {
    const user = await userToken(server);
    const res = await exchange({
      subject_token: user.access_token, subject_token_type: accessTokenType,
      actor_token: await clientToken(), actor_token_type: 'urn:ietf:params:oauth:token-type:id_token', scope: 'backend.read',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(invalidRequest(`Unsupported actor_token_type; only ${accessTokenType} is accepted.`));
  });

  it('answers invalid_request for a subject_token or actor_token that does not validate (RFC 8693 §2.2.2)', async () => {
    const user = await userToken(server);
    const bad = `${user.access_token.slice(0, -4)}AAAA`;
    const subject = await exchange({ subject_token: bad, subject_token_type: accessTokenType, scope: 'backend.read' });
    expect(subject.status).toBe(400);
    expect(subject.body).toEqual({ error: 'invalid_request', error_description: 'The subject_token is invalid.' });
    const actor = await exchange({
      subject_token: user.access_token, subject_token_type: accessTokenType, actor_token: bad, actor_token_type: accessTokenType, scope: 'backend.read',
    });
    expect(actor.status).toBe(400);
    expect(actor.body).toEqual({ error: 'invalid_request', error_description: 'The actor_token is invalid.' });
  });

  it('answers invalid_request for a subject_token addressed to an audience the client may not exchange (RFC 8693 §2.2.2; issue 14.1)', async () => {
    const backendUser = await userToken(server, { clientId: 'backend-app', scope: 'backend.read' });
    const res = await exchange({ subject_token: backendUser.access_token, subject_token_type: accessTokenType, scope: 'backend.read' }, 'api1-exchanger');
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400, body: invalidRequest('The subject_token was not issued to an audience this client may exchange.'),
    });
    const own = await exchange({ subject_token: (await userToken(server)).access_token, subject_token_type: accessTokenType, scope: 'backend.read' }, 'api1-exchanger');
    expect(own.status).toBe(200);
  });

  it('answers unauthorized_client to a client without the token-exchange grant type', async () => {
    const user = await userToken(server);
    const res = await exchange({ subject_token: user.access_token, subject_token_type: accessTokenType, scope: 'api1.read' }, 'web');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'unauthorized_client', error_description: 'The client is not allowed to use this grant type.' });
  });
});

describe('audience and resource', () => {
  const both = 'api1.read backend.read';

  it('covers every resource of the granted scopes when no audience is named', async () => {
    const res = await exchange({ subject_token: (await userToken(server)).access_token, subject_token_type: accessTokenType, scope: both });
    expect(res.status).toBe(200);
    expect(accessClaims(res.body.access_token).aud).toEqual(['api1', 'backend']);
  });

  it('narrows aud to the named audience', async () => {
    const res = await exchange({ subject_token: (await userToken(server)).access_token, subject_token_type: accessTokenType, scope: both, audience: 'backend' });
    expect(res.status).toBe(200);
    expect(accessClaims(res.body.access_token).aud).toBe('backend');
  });

  it('narrows aud to the named resource', async () => {
    const res = await exchange({ subject_token: (await userToken(server)).access_token, subject_token_type: accessTokenType, scope: both, resource: 'api1' });
    expect(res.status).toBe(200);
    expect(accessClaims(res.body.access_token).aud).toBe('api1');
  });

  it('answers invalid_target for an audience that is no API resource', async () => {
    const res = await exchange({ subject_token: (await userToken(server)).access_token, subject_token_type: accessTokenType, scope: both, audience: 'payments' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_target', error_description: 'The requested audience or resource is unknown or not covered by the requested scopes.' });
  });

  it('answers invalid_target for a resource none of the requested scopes belong to', async () => {
    const res = await exchange({ subject_token: (await userToken(server)).access_token, subject_token_type: accessTokenType, scope: 'backend.read', resource: 'api1' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_target', error_description: 'None of the requested scopes belong to a requested resource.' });
  });
});

describe('refresh tokens', () => {
  it('returns a refresh token for offline_access with a user subject token', async () => {
    const res = await exchange({ subject_token: (await userToken(server)).access_token, subject_token_type: accessTokenType, scope: 'backend.read offline_access' });
    expect(res.status).toBe(200);
    expect(res.body.refresh_token).toEqual(expect.stringMatching(handlePattern));
  });

  it('keeps the narrowed audience when the exchanged token is refreshed', async () => {
    const res = await exchange({
      subject_token: (await userToken(server)).access_token, subject_token_type: accessTokenType, scope: 'api1.read backend.read offline_access', audience: 'backend',
    });
    expect(accessClaims(res.body.access_token).aud).toBe('backend');
    const refreshed = await tokenRequest(server, 'exchanger', { grant_type: 'refresh_token', refresh_token: res.body.refresh_token as string });
    expect(refreshed.status).toBe(200);
    expect(accessClaims(refreshed.body.access_token).aud).toBe('backend');
  });
});
