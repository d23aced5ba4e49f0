/**
 * RFC 6749 §5.1: every response of the token endpoint carries `Cache-Control: no-store` (and
 * `Pragma: no-cache`): a token, and each kind of error the endpoint answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
const asM2m = { authorization: basic('m2m', 'caching-secret-51e0') };

beforeAll(async () => {
  server = await startServer({
    apiScopes: [{ name: 'api1.read' }, { name: 'api2.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'] }, { name: 'api2', scopes: ['api2.read'] }],
    clients: [
      {
        clientId: 'm2m',
        clientSecrets: [{ value: hashSecret('caching-secret-51e0') }],
        allowedGrantTypes: ['client_credentials'],
        allowedScopes: ['api1.read'],
      },
    ],
  });
});

afterAll(async () => {
  await server?.close();
});

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('the token endpoint', () => {
  it.each<[string, number, string | undefined, RequestInit]>([
    ['a token', 200, undefined, { method: 'POST', headers: { ...form, ...asM2m }, body: 'grant_type=client_credentials' }],
    ['invalid_request', 400, 'invalid_request', { method: 'POST', headers: { ...form, ...asM2m }, body: 'scope=api1.read' }],
    ['unsupported_grant_type', 400, 'unsupported_grant_type', { method: 'POST', headers: { ...form, ...asM2m }, body: 'grant_type=urn:x' }],
    ['unauthorized_client', 400, 'unauthorized_client', { method: 'POST', headers: { ...form, ...asM2m }, body: 'grant_type=password' }],
    ['invalid_scope', 400, 'invalid_scope', { method: 'POST', headers: { ...form, ...asM2m }, body: 'grant_type=client_credentials&scope=api2.read' }],
    ['invalid_client', 401, 'invalid_client', { method: 'POST', headers: { ...form, authorization: basic('m2m', 'wrong') }, body: 'grant_type=client_credentials' }],
    ['a wrong content type', 400, 'invalid_request', { method: 'POST', headers: { 'content-type': 'application/json', ...asM2m }, body: '{}' }],
    ['a body over the limit', 413, 'invalid_request', { method: 'POST', headers: { ...form, ...asM2m }, body: `grant_type=client_credentials&x=${'a'.repeat(70_000)}` }],
    ['a wrong method', 405, 'invalid_request', { method: 'GET' }],
  ])('answers %s with no-store', async (_case, status, error, init) => {
    const res = await fetch(`${server.url}/connect/token`, init);
    const body = (await res.json()) as Record<string, unknown>;
    expect({ status: res.status, error: body.error }).toEqual({ status, error });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
  });
});
