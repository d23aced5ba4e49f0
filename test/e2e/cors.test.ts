/**
 * CORS over HTTP: the token, revocation and device authorization endpoints answer browsers from
 * an origin some client lists in `allowedCorsOrigins`; discovery and the JWKS are readable from
 * anywhere; introspection (called by APIs, not browsers) never is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { demoConfig } from '../support/demo-config.js';
import { basic, startServer, type TestServer } from '../support/server.js';

const spaOrigin = 'https://app.example.com';
const devOrigin = 'http://localhost:3000';
const strangerOrigin = 'https://evil.example.net';
const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';

const config: UserConfig = {
  ...demoConfig,
  clients: [
    ...demoConfig.clients!,
    {
      clientId: 'spa',
      clientSecrets: [{ value: hashSecret('spa-secret') }],
      allowedGrantTypes: ['client_credentials', deviceGrant],
      allowedScopes: ['api1.read'],
      allowedCorsOrigins: [spaOrigin, devOrigin],
    },
  ],
};

let server: TestServer;
beforeAll(async () => {
  server = await startServer(config);
});
afterAll(async () => {
  await server?.close();
});

interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

async function preflight(path: string, origin: string | undefined, base = server.url): Promise<Reply> {
  const headers: Record<string, string> = {
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization,content-type',
  };
  if (origin !== undefined) headers.origin = origin;
  const res = await fetch(`${base}${path}`, { method: 'OPTIONS', headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function post(path: string, body: string, origin: string | undefined, authorization: string, base = server.url): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', authorization };
  if (origin !== undefined) headers.origin = origin;
  const res = await fetch(`${base}${path}`, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function expectNoCors(reply: Reply): void {
  for (const name of [
    'access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers',
    'access-control-allow-credentials', 'access-control-expose-headers',
  ]) {
    expect(reply.headers.get(name), name).toBeNull();
  }
}

const asSpa = basic('spa', 'spa-secret');
const browserEndpoints = [
  { name: 'token', path: '/connect/token', body: 'grant_type=client_credentials' },
  { name: 'revocation', path: '/connect/revocation', body: 'token=unknown-handle' },
  { name: 'device authorization', path: '/connect/deviceauthorization', body: 'scope=api1.read' },
] as const;

describe.each(browserEndpoints)('$name endpoint', ({ path, body }) => {
  it.each([spaOrigin, devOrigin])('answers a preflight from an allowed origin (%s) with 204 and the CORS headers', async (origin) => {
    const reply = await preflight(path, origin);
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    expect(reply.headers.get('access-control-allow-origin')).toBe(origin);
    expect(reply.headers.get('access-control-allow-methods')).toBe('POST');
    expect(reply.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, DPoP');
    expect(reply.headers.get('access-control-max-age')).toBe('600');
    expect(reply.headers.get('vary')).toBe('Origin');
    // The client authenticates with its own credentials, never with the browser's cookies.
    expect(reply.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it.each([
    ['an unknown origin', strangerOrigin],
    ['an allowed origin with a trailing slash', `${spaOrigin}/`],
    ['an allowed origin with another scheme', 'http://app.example.com'],
    ['an allowed origin with another port', 'https://app.example.com:8443'],
    ['a subdomain of an allowed origin', 'https://x.app.example.com'],
    ['the opaque origin "null"', 'null'],
  ])('refuses a preflight from %s with 403 JSON and no CORS headers', async (_case, origin) => {
    const reply = await preflight(path, origin);
    expect(reply.status).toBe(403);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(reply.text)).toEqual({
      error: 'invalid_request',
      error_description: 'The origin is not allowed to call this endpoint.',
    });
    expectNoCors(reply);
  });

  it('answers an OPTIONS without Origin (no CORS request) like any other path: 200 with Allow', async () => {
    const reply = await preflight(path, undefined);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('allow')).toBe('OPTIONS, POST');
    expect(reply.text).toBe('');
    expectNoCors(reply);
  });

  it('answers a POST from an allowed origin with Access-Control-Allow-Origin and Vary: Origin', async () => {
    const reply = await post(path, body, spaOrigin, asSpa);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('access-control-allow-origin')).toBe(spaOrigin);
    expect(reply.headers.get('vary')).toBe('Origin');
    expect(reply.headers.get('access-control-allow-credentials')).toBeNull();
    expect(reply.headers.get('access-control-expose-headers')).toBe('Retry-After, WWW-Authenticate, X-Request-Id, DPoP-Nonce');
  });

  it('lets an allowed origin read an error too', async () => {
    const reply = await post(path, body, spaOrigin, basic('spa', 'wrong-secret'));
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.text)).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    expect(reply.headers.get('access-control-allow-origin')).toBe(spaOrigin);
    expect(reply.headers.get('vary')).toBe('Origin');
    // Not a CORS-safelisted response header: without exposing it, the browser hides the challenge.
    expect(reply.headers.get('www-authenticate')).toBe('Basic realm="svc"');
    expect(reply.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
  });

  it('gives a POST from another origin no CORS headers', async () => {
    const reply = await post(path, body, strangerOrigin, asSpa);
    expectNoCors(reply);
  });

  it('gives a POST without Origin (not a browser) no CORS headers', async () => {
    const reply = await post(path, body, undefined, asSpa);
    expect(reply.status, reply.text).toBe(200);
    expectNoCors(reply);
  });
});

describe('token endpoint origins', () => {
  it("serves any client from an origin some client lists (the client is not known before the body is read)", async () => {
    const reply = await post('/connect/token', 'grant_type=client_credentials', spaOrigin, basic('m2m', 'm2m-secret'));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('access-control-allow-origin')).toBe(spaOrigin);
  });
});

describe('introspection endpoint', () => {
  it('answers no preflight, even from an allowed origin: a plain 200 with Allow', async () => {
    const reply = await preflight('/connect/introspect', spaOrigin);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('allow')).toBe('POST');
    expect(reply.text).toBe('');
    expectNoCors(reply);
  });

  it('gives a POST from an allowed origin no CORS headers', async () => {
    const reply = await post('/connect/introspect', 'token=unknown', spaOrigin, basic('api1', 'api1-secret'));
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text)).toEqual({ active: false });
    expectNoCors(reply);
  });
});

describe('public documents', () => {
  it.each([
    ['discovery', '/.well-known/openid-configuration', 'application/json; charset=utf-8'],
    ['OAuth metadata', '/.well-known/oauth-authorization-server', 'application/json; charset=utf-8'],
    ['the JWKS', '/.well-known/openid-configuration/jwks', 'application/jwk-set+json'],
  ])('%s is readable from any origin', async (_name, path, contentType) => {
    for (const origin of [strangerOrigin, spaOrigin, undefined]) {
      const res = await fetch(`${server.url}${path}`, { headers: origin ? { origin } : {} });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(contentType);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      await res.arrayBuffer();
    }
  });
});

describe('a service where no client lists an origin', () => {
  let plain: TestServer;
  beforeAll(async () => {
    plain = await startServer(demoConfig);
  });
  afterAll(async () => {
    await plain?.close();
  });

  it('answers no preflight on the token endpoint: a plain 200 with Allow', async () => {
    const reply = await preflight('/connect/token', spaOrigin, plain.url);
    expect(reply.status).toBe(200);
    // OPTIONS is routed even here: a client added to the database later may list an origin.
    expect(reply.headers.get('allow')).toBe('OPTIONS, POST');
    expectNoCors(reply);
  });

  it('gives a token POST from a browser no CORS headers', async () => {
    const reply = await post('/connect/token', 'grant_type=client_credentials', spaOrigin, basic('m2m', 'm2m-secret'), plain.url);
    expect(reply.status).toBe(200);
    expectNoCors(reply);
  });

  it('still serves discovery and the JWKS to any origin', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/openid-configuration/jwks']) {
      const res = await fetch(`${plain.url}${path}`, { headers: { origin: strangerOrigin } });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      await res.arrayBuffer();
    }
  });
});
