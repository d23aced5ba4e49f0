/**
 * RFC 9701 over HTTP, with oauth4webapi as the API: it asks for the JWT answer, checks its type,
 * issuer and audience, and verifies the signature against the service's published keys. An API
 * that asks for JSON keeps getting RFC 7662's plain answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { decodeProtectedHeader } from 'jose';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';

let s: TestServer;
let as: oauth.AuthorizationServer;
const api: oauth.Client = { client_id: 'billing' };
const apiAuth = oauth.ClientSecretBasic('billing-secret');
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  s = await startServer({
    apiScopes: [{ name: 'billing.read' }, { name: 'reports.read' }],
    apiResources: [
      { name: 'billing', scopes: ['billing.read'], secrets: [{ value: hashSecret('billing-secret') }] },
      { name: 'reports', scopes: ['reports.read'], secrets: [{ value: hashSecret('reports-secret') }], introspectionSigningAlgorithm: 'ES256' },
    ],
    clients: [{
      clientId: 'shop', clientSecrets: [{ value: hashSecret('shop-secret') }], allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['billing.read', 'reports.read'], accessTokenType: 'reference',
    }],
  });
  as = await oauth.processDiscoveryResponse(new URL(s.url), await oauth.discoveryRequest(new URL(s.url), insecure));
});

afterAll(() => s?.close());

async function tokenFor(scope: string): Promise<string> {
  const res = await postForm(`${s.url}/connect/token`, { grant_type: 'client_credentials', scope }, { authorization: basic('shop', 'shop-secret') });
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

async function introspectAsJwt(token: string): Promise<{ answer: oauth.IntrospectionResponse; response: Response }> {
  const response = await oauth.introspectionRequest(as, api, apiAuth, token, { ...insecure, requestJwtResponse: true });
  expect(response.headers.get('content-type')).toBe('application/token-introspection+jwt');
  expect(response.headers.get('cache-control')).toBe('no-store');
  const copy = response.clone();
  const answer = await oauth.processIntrospectionResponse(as, api, response);
  // The signature, against the keys at jwks_uri (oauth4webapi checks it only when asked).
  await oauth.validateApplicationLevelSignature(as, response, insecure);
  return { answer, response: copy };
}

describe('JWT introspection answers (RFC 9701)', () => {
  it('advertises the algorithms it signs answers with', () => {
    expect(as.introspection_signing_alg_values_supported).toContain('RS256');
  });

  it('answers an API asking for a JWT with a signed answer about its token', async () => {
    const { answer, response } = await introspectAsJwt(await tokenFor('billing.read'));
    expect(answer).toMatchObject({ active: true, scope: 'billing.read', client_id: 'shop', token_type: 'Bearer' });
    expect(decodeProtectedHeader(await response.text())).toMatchObject({ alg: 'RS256', typ: 'token-introspection+jwt' });
  });

  it('says only active: false, signed, about a token for another API or no token at all', async () => {
    expect((await introspectAsJwt(await tokenFor('reports.read'))).answer).toEqual({ active: false });
    expect((await introspectAsJwt('not-a-token')).answer).toEqual({ active: false });
  });

  it("signs with the API's own algorithm when it names one (introspection_signed_response_alg)", async () => {
    const reports: oauth.Client = { client_id: 'reports', introspection_signed_response_alg: 'ES256' };
    const response = await oauth.introspectionRequest(as, reports, oauth.ClientSecretBasic('reports-secret'), await tokenFor('reports.read'), insecure);
    const copy = response.clone();
    expect(await oauth.processIntrospectionResponse(as, reports, response)).toMatchObject({ active: true, scope: 'reports.read' });
    await oauth.validateApplicationLevelSignature(as, response, insecure);
    expect(decodeProtectedHeader(await copy.text()).alg).toBe('ES256');
  });

  it('stops start-up when an API names an algorithm the service does not sign with', async () => {
    await expect(startServer({
      apiScopes: [{ name: 'x.read' }],
      apiResources: [{ name: 'x', scopes: ['x.read'], introspectionSigningAlgorithm: 'PS384' }],
    })).rejects.toThrow(/apiResources\[0\]\.introspectionSigningAlgorithm: "PS384" is not an algorithm the service signs with \(ES256, RS256\)/);
  });

  it('keeps the plain JSON of RFC 7662 for an API that asks for JSON', async () => {
    const response = await oauth.introspectionRequest(as, api, apiAuth, await tokenFor('billing.read'), insecure);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await oauth.processIntrospectionResponse(as, api, response)).toMatchObject({ active: true, scope: 'billing.read' });
  });

  it('answers a failed API authentication with the JSON error, whatever the Accept header', async () => {
    const response = await fetch(`${s.url}/connect/introspect`, {
      method: 'POST',
      headers: { authorization: basic('billing', 'wrong'), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/token-introspection+jwt' },
      body: 'token=x',
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });
});
