/**
 * POST /connect/par (RFC 9126): client authentication as at the token endpoint, 201 with a
 * one-time request_uri good for 60 s, the pushed parameters validated there, and clients with
 * requirePushedAuthorization refused at the front channel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, Browser, redeemWeb, signInAndAuthorize, signInClients, signInConfig, webRequest } from '../support/sign-in.js';

let server: TestServer;
const web = `Basic ${Buffer.from('web:web-secret').toString('base64')}`;
beforeAll(async () => {
  server = await startServer(await signInConfig({
    clients: [
      ...signInClients,
      {
        clientId: 'par-only', clientSecrets: [{ value: hashSecret('par-secret') }], requirePushedAuthorization: true,
        allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://par.example.com/cb'],
      },
    ],
  }));
});
afterAll(() => server.close());

const push = (params: Record<string, string>, authorization = web) => postForm(`${server.url}/connect/par`, params, { authorization });

describe('pushed authorization requests', () => {
  it('answers 201 with a request_uri and expires_in 60; the authorization endpoint takes it once, and the code works', async () => {
    const { params, verifier } = webRequest();
    const pushed = await push(params);
    expect(pushed.status).toBe(201);
    expect(pushed.body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[\w-]{43}$/);
    expect(pushed.body.expires_in).toBe(60);
    expect(pushed.headers.get('cache-control')).toBe('no-store');
    const front = { client_id: 'web', request_uri: pushed.body.request_uri as string };
    const browser = new Browser(server.url);
    const location = await signInAndAuthorize(server, browser, front);
    expect(location.searchParams.get('state')).toBe(params.state);
    expect((await redeemWeb(server, location.searchParams.get('code')!, verifier)).status).toBe(200);
    const again = await browser.get(authorizeUrl(server, front));
    expect(again.status).toBe(400);
    expect(again.html).toContain('This sign-in link has expired or was already used.');
  });

  it('the client must authenticate', async () => {
    const res = await push(webRequest().params, `Basic ${Buffer.from('web:wrong').toString('base64')}`);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('validates the pushed parameters: an unregistered redirect URI is a 400 with no request_uri', async () => {
    const res = await push(webRequest({ redirect_uri: 'https://evil.example/cb' }).params);
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'The redirect URI is not registered for this application.' } });
    expect(res.body.request_uri).toBeUndefined();
    const plain = await push(webRequest({ code_challenge_method: 'plain' }).params);
    expect(plain).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'Only code_challenge_method=S256 is supported.' } });
  });

  it('refuses a pushed request that carries request_uri itself (RFC 9126 §2.1)', async () => {
    const res = await push(webRequest({ request_uri: 'urn:ietf:params:oauth:request_uri:x' }).params);
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'A pushed authorization request must not contain request_uri.' } });
  });

  it('a request_uri is good only for the client that pushed it', async () => {
    const pushed = await push(webRequest().params);
    const res = await new Browser(server.url).get(authorizeUrl(server, { client_id: 'spa', request_uri: pushed.body.request_uri as string }));
    expect(res.status).toBe(400);
    expect(res.location).toBeUndefined();
  });

  it('a client with requirePushedAuthorization is refused at the front channel, and served through PAR', async () => {
    const base = { ...webRequest({ scope: 'openid' }, 'par-only', 'https://par.example.com/cb').params };
    const front = await new Browser(server.url).get(authorizeUrl(server, base));
    expect(front.status).toBe(303);
    expect(Object.fromEntries(front.location!.searchParams)).toMatchObject({ error: 'invalid_request', error_description: 'This client must use pushed authorization requests.' });
    const pushed = await push(base, `Basic ${Buffer.from('par-only:par-secret').toString('base64')}`);
    expect(pushed.status).toBe(201);
  });

  it('discovery names the endpoint', async () => {
    const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      pushed_authorization_request_endpoint: `${server.url}/connect/par`,
      authorization_endpoint: `${server.url}/connect/authorize`,
      userinfo_endpoint: `${server.url}/connect/userinfo`,
      end_session_endpoint: `${server.url}/connect/endsession`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    expect(doc.grant_types_supported).toContain('authorization_code');
    expect(doc.claims_supported).toEqual(['sub', 'name', 'email']);
  });
});
