/**
 * The spans of real requests, caught with the SDK's in-memory exporter: a server span per
 * request named by its route, with status, client id, grant type, outcome and request id; child
 * spans for client authentication, the grant, token issuance, signing and the store calls; and
 * no secret, password, code, verifier, assertion or token anywhere in any span.
 */
import { context, propagation } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { alice, Browser, redeemWeb, signInAndAuthorize, signInClients, signInConfig, webRequest } from '../support/sign-in.js';
import { makeKey, publicJwk, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager().enable();
let server: TestServer;
let key: TestKey;

const apiSecret = 'api1-introspection-secret-7f3e';
const referenceSecret = 'reference-client-secret-91ab';

beforeAll(async () => {
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  key = await makeKey('P-256');
  server = await startServer(
    await signInConfig({
      apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret(apiSecret) }] }],
      clients: [
        ...signInClients,
        { clientId: 'reference', clientSecrets: [{ value: hashSecret(referenceSecret) }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'], accessTokenType: 'reference' },
        { clientId: 'keyed', clientSecrets: [{ type: 'JsonWebKey', value: JSON.stringify(publicJwk(key)) }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
      ],
    }),
    { tracerProvider: provider },
  );
});

afterAll(async () => {
  await server?.close();
  context.disable();
  propagation.disable();
  await provider.shutdown();
});

beforeEach(() => exporter.reset());

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const named = (name: string): ReadableSpan => {
  const found = spans().filter((s) => s.name === name);
  expect(found.map((s) => s.name), `one span "${name}" among ${spans().map((s) => s.name).join(', ')}`).toEqual([name]);
  return found[0]!;
};
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe('tracing a token request', () => {
  it('makes a server span with route, status, client, grant type and request id, parent of the steps', async () => {
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('reference', referenceSecret), 'x-request-id': 'trace-test-1' });
    expect(res.status).toBe(200);

    const request = named('POST /connect/token');
    expect(request.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/connect/token',
      'http.response.status_code': 200,
      'svc.request_id': 'trace-test-1',
      'svc.outcome': 'ok',
      'oauth.grant_type': 'client_credentials',
      'oauth.client_id': 'reference',
    });
    expect(request.kind).toBe(1); // SpanKind.SERVER
    const id = request.spanContext().spanId;

    const authentication = named('client_authentication');
    expect(parentOf(authentication)).toBe(id);
    expect(authentication.attributes).toEqual({ 'svc.endpoint': 'token', 'svc.request_id': 'trace-test-1', 'oauth.client_id': 'reference', 'oauth.client_auth_method': 'client_secret_basic' });

    const grant = named('grant client_credentials');
    expect(parentOf(grant)).toBe(id);
    expect(grant.attributes).toEqual({ 'oauth.grant_type': 'client_credentials', 'oauth.client_id': 'reference', 'svc.request_id': 'trace-test-1' });

    const issuance = named('token_issuance');
    expect(parentOf(issuance)).toBe(id);
    // A reference token is a stored record: the issuance commits it to the store.
    const commit = named('store commit');
    expect(parentOf(commit)).toBe(issuance.spanContext().spanId);
    expect(commit.attributes).toEqual({ 'db.system.name': 'memory', 'db.operation.name': 'commit', 'svc.request_id': 'trace-test-1' });
    for (const s of spans()) expect(s.spanContext().traceId).toBe(request.spanContext().traceId);
  });

  it('spans the signature of a JWT access token under the issuance', async () => {
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('m2m', 'm2m-secret') });
    expect(res.status).toBe(200);
    const sign = named('sign access_token');
    expect(parentOf(sign)).toBe(named('token_issuance').spanContext().spanId);
    expect(sign.attributes['jws.alg']).toBe('ES256');
  });

  it('records a refusal: the OAuth error on the request span, the failed step marked', async () => {
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('m2m', 'wrong-secret') });
    expect(res.status).toBe(401);
    const request = named('POST /connect/token');
    expect(request.attributes['http.response.status_code']).toBe(401);
    expect(request.attributes['oauth.error']).toBe('invalid_client');
    expect(request.attributes['svc.outcome']).toBe('invalid_client');
    expect(request.attributes).not.toHaveProperty('oauth.client_id');
    expect(request.status.code).toBe(0); // a 4xx is the service working: UNSET
    const authentication = named('client_authentication');
    expect(authentication.status).toEqual({ code: 2, message: 'invalid_client' });
    expect(authentication.attributes['error.type']).toBe('invalid_client');
    expect(spans().map((s) => s.name)).not.toContain('token_issuance');
  });

  it("starts a trace of its own for a caller's W3C traceparent, linked to the caller's span", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, {
      authorization: basic('m2m', 'm2m-secret'), traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
    });
    expect(res.status).toBe(200);
    const request = named('POST /connect/token');
    expect(request.spanContext().traceId).not.toBe(traceId);
    expect(parentOf(request)).toBeUndefined();
    expect(request.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[traceId, '00f067aa0ba902b7']]);
  });

  it('traces a failing request whose traceparent says "not sampled" (-00): the caller does not decide', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const res = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, {
      authorization: basic('m2m', 'wrong-secret'), traceparent: `00-${traceId}-b7ad6b7169203331-00`,
    });
    expect(res.status).toBe(401);
    const request = named('POST /connect/token');
    expect(request.attributes['oauth.error']).toBe('invalid_client');
    expect(request.spanContext().traceId).not.toBe(traceId);
    expect(named('client_authentication').spanContext().traceId).toBe(request.spanContext().traceId);
  });

  it('names a request no route matched by its method only', async () => {
    const res = await fetch(`${server.url}/no/such/path-with-a-token-in-it`);
    expect(res.status).toBe(404);
    const [request] = spans();
    expect(request!.name).toBe('GET');
    expect(request!.attributes).not.toHaveProperty('http.route');
    expect(request!.attributes['http.response.status_code']).toBe(404);
  });
});

describe('what spans never hold', () => {
  it('no secret, password, code, verifier, assertion or token in any span name, attribute, event or status', async () => {
    const seen: string[] = [apiSecret, referenceSecret, 'm2m-secret', 'web-secret', alice.password];
    // Client credentials, reference and JWT tokens, and introspection with the API's secret.
    const reference = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('reference', referenceSecret) });
    const jwt = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials', client_id: 'm2m', client_secret: 'm2m-secret' });
    seen.push(String(reference.body.access_token), String(jwt.body.access_token));
    expect((await postForm(`${server.url}/connect/introspect`, { token: String(reference.body.access_token) }, { authorization: basic('api1', apiSecret) })).body.active).toBe(true);
    // private_key_jwt: the assertion.
    const assertion = await new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('keyed').setSubject('keyed').setAudience(server.url).setIssuedAt().setExpirationTime('1m')
      .sign(key.privateKey);
    seen.push(assertion);
    const keyed = await postForm(`${server.url}/connect/token`, {
      grant_type: 'client_credentials', client_id: 'keyed', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion,
    });
    expect(keyed.status).toBe(200);
    // The authorization code flow: password, code, verifier, ID token, refresh token, then a refresh and a revocation.
    const { params, verifier } = webRequest({ scope: 'openid profile api1.read offline_access' });
    const location = await signInAndAuthorize(server, new Browser(server.url), params);
    const code = location.searchParams.get('code')!;
    const tokens = await redeemWeb(server, code, verifier);
    expect(tokens.status).toBe(200);
    seen.push(code, verifier, String(tokens.body.access_token), String(tokens.body.id_token), String(tokens.body.refresh_token));
    const refreshed = await postForm(`${server.url}/connect/token`, { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token) }, { authorization: basic('web', 'web-secret') });
    expect(refreshed.status).toBe(200);
    seen.push(String(refreshed.body.access_token), String(refreshed.body.refresh_token));
    await postForm(`${server.url}/connect/revocation`, { token: String(refreshed.body.refresh_token) }, { authorization: basic('web', 'web-secret') });
    // A token sent where it does not belong: in the path, and as a wrong secret.
    await fetch(`${server.url}/connect/${String(jwt.body.access_token)}`);
    await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('m2m', String(jwt.body.access_token)) });

    const recorded = spans();
    expect(recorded.map((s) => s.name)).toEqual(expect.arrayContaining([
      'POST /connect/token', 'POST /connect/introspect', 'POST /connect/revocation', 'client_authentication', 'api_resource_authentication',
      'grant authorization_code', 'grant refresh_token', 'sign access_token', 'sign id_token', 'token_issuance', 'store get', 'store commit', 'store removeAll',
    ]));
    const text = JSON.stringify(recorded.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status, links: s.links })));
    for (const value of seen) {
      expect(value.length).toBeGreaterThan(8);
      expect(text).not.toContain(value);
    }
  });
});
