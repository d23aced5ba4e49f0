/**
 * Operator endpoints over HTTP: liveness, readiness (the store answers within 2 s) and
 * Prometheus metrics (off by default, optionally behind a bearer token, counting requests,
 * tokens and failed authentications).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { StoreUnavailableError, type Store } from '../../src/store/store.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { demoConfig } from '../support/demo-config.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';

const metricsToken = 'metrics-bearer-7d1e5c2a9b';
const notFound = { error: 'invalid_request', error_description: 'Not found.' };

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function json(text: string): unknown {
  return JSON.parse(text) as unknown;
}

/** The value of one sample in Prometheus text, matched by name and exact label set. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) found[k!] = v!;
    if (JSON.stringify(Object.entries(found).sort()) === JSON.stringify(Object.entries(labels).sort())) return Number(m[3]);
  }
  return undefined;
}

describe('health', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(demoConfig);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('GET /healthz answers 200 {"status":"ok"}', async () => {
    const res = await get(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json(res.text)).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 {"status":"ready"} when the store answers', async () => {
    const res = await get(`${server.url}/readyz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json(res.text)).toEqual({ status: 'ready' });
  });

  it('answers POST /healthz with 405 JSON', async () => {
    const res = await fetch(`${server.url}/healthz`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('HEAD, GET');
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'Method not allowed.' });
  });
});

describe('readiness when the store does not answer', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A working memory store whose ping misbehaves as told; everything else works. */
  function storeWithPing(ping: () => Promise<void>): Store {
    return { ...createMemoryStore(), ping };
  }

  it('answers 503 JSON within about 2 s when ping hangs, while /healthz still answers 200', async () => {
    server = await startServer(demoConfig, { store: storeWithPing(() => new Promise<void>(() => undefined)) });
    const started = performance.now();
    const res = await get(`${server.url}/readyz`);
    const ms = performance.now() - started;
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json(res.text)).toEqual({ status: 'unavailable', reason: 'the store does not answer' });
    expect(ms).toBeGreaterThanOrEqual(1900);
    expect(ms).toBeLessThan(4000);
    expect((await get(`${server.url}/healthz`)).status).toBe(200);
  });

  it('answers 503 JSON at once when ping rejects, without leaking the cause', async () => {
    server = await startServer(demoConfig, {
      store: storeWithPing(() => Promise.reject(new Error('connect ECONNREFUSED 10.9.8.7:5432'))),
    });
    const started = performance.now();
    const res = await get(`${server.url}/readyz`);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(503);
    expect(json(res.text)).toEqual({ status: 'unavailable', reason: 'the store does not answer' });
    expect(res.text).not.toContain('ECONNREFUSED');
  });

  it('is ready again as soon as the store answers again', async () => {
    let up = false;
    server = await startServer(demoConfig, {
      store: storeWithPing(() => (up ? Promise.resolve() : Promise.reject(new Error('down')))),
    });
    expect((await get(`${server.url}/readyz`)).status).toBe(503);
    up = true;
    const res = await get(`${server.url}/readyz`);
    expect(res.status).toBe(200);
    expect(json(res.text)).toEqual({ status: 'ready' });
  });
});

describe('metrics disabled (the default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(demoConfig);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('has no /metrics: 404 JSON', async () => {
    const res = await get(`${server.url}/metrics`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json(res.text)).toEqual(notFound);
  });

  it('ignores a bearer token: still 404', async () => {
    const res = await get(`${server.url}/metrics`, { authorization: `Bearer ${metricsToken}` });
    expect(res.status).toBe(404);
    expect(json(res.text)).toEqual(notFound);
  });
});

describe('metrics enabled without a token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ ...demoConfig, metrics: { enabled: true } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves the Prometheus text format to anyone', async () => {
    const res = await get(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.text).toContain('# TYPE svc_http_requests_total counter');
    expect(res.text).toContain('# TYPE svc_http_request_duration_seconds histogram');
    expect(res.text).toContain('# TYPE svc_tokens_issued_total counter');
    expect(res.text).toContain('# TYPE svc_authentication_failures_total counter');
    expect(res.text).toContain('# TYPE svc_store_errors_total counter');
    // Node's process metrics.
    expect(res.text).toMatch(/^svc_process_cpu_user_seconds_total \d/m);
    expect(res.text).toMatch(/^svc_nodejs_heap_size_used_bytes \d/m);
  });
});

describe('metrics enabled behind a bearer token', () => {
  const config: UserConfig = {
    ...demoConfig,
    metrics: { enabled: true, bearerToken: metricsToken },
  };
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(config);
  });
  afterAll(async () => {
    await server?.close();
  });

  const scrape = () => get(`${server.url}/metrics`, { authorization: `Bearer ${metricsToken}` });

  it.each([
    ['no Authorization header', undefined],
    ['a wrong bearer token', 'Bearer not-the-metrics-token'],
    ['the token with another scheme', `Basic ${metricsToken}`],
    ['the token without a scheme', metricsToken],
    ['the token with a suffix', `Bearer ${metricsToken}x`],
    ['the token cut short', `Bearer ${metricsToken.slice(0, -1)}`],
    ['the token followed by another word', `Bearer ${metricsToken} extra`],
    ['an empty bearer token', 'Bearer '],
  ])('answers %s with 401 JSON and a Bearer challenge', async (_case, authorization) => {
    const res = await get(`${server.url}/metrics`, authorization === undefined ? {} : { authorization });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json(res.text)).toEqual({ error: 'invalid_token', error_description: 'A valid bearer token is required for metrics.' });
    expect(res.text).not.toContain('svc_');
  });

  it('serves the metrics with the right bearer token', async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.text).toContain('# TYPE svc_http_requests_total counter');
  });

  it('reads the scheme case-insensitively (RFC 7235 §2.1)', async () => {
    const res = await get(`${server.url}/metrics`, { authorization: `bearer ${metricsToken}` });
    expect(res.status).toBe(200);
    expect(res.text).toContain('# TYPE svc_http_requests_total counter');
  });

  it('counts issued tokens by grant type, failed authentications by endpoint, and requests by route and status', async () => {
    const before = (await scrape()).text;
    const count = (text: string, name: string, labels: Record<string, string>) => sample(text, name, labels) ?? 0;

    const tokenUrl = `${server.url}/connect/token`;
    const cc = { grant_type: 'client_credentials' };
    for (let i = 0; i < 3; i++) {
      expect((await postForm(tokenUrl, cc, { authorization: basic('m2m', 'm2m-secret') })).status).toBe(200);
    }
    for (let i = 0; i < 2; i++) {
      expect((await postForm(tokenUrl, cc, { authorization: basic('m2m', 'wrong-secret') })).status).toBe(401);
    }
    // No credentials at all: counted under method "none".
    expect((await postForm(tokenUrl, { ...cc, client_id: 'm2m' })).status).toBe(401);
    const introspect = await postForm(`${server.url}/connect/introspect`, { token: 'x' }, { authorization: basic('api1', 'wrong') });
    expect(introspect.status).toBe(401);
    expect((await get(`${server.url}/no/such/path`)).status).toBe(404);

    const after = (await scrape()).text;
    const delta = (name: string, labels: Record<string, string>) => count(after, name, labels) - count(before, name, labels);
    expect(delta('svc_tokens_issued_total', { grant_type: 'client_credentials' })).toBe(3);
    expect(delta('svc_authentication_failures_total', { endpoint: 'token', method: 'client_secret_basic' })).toBe(2);
    expect(delta('svc_authentication_failures_total', { endpoint: 'token', method: 'none' })).toBe(1);
    expect(delta('svc_authentication_failures_total', { endpoint: 'introspection', method: 'client_secret_basic' })).toBe(1);
    expect(delta('svc_http_requests_total', { route: '/connect/token', method: 'POST', status: '200' })).toBe(3);
    expect(delta('svc_http_requests_total', { route: '/connect/token', method: 'POST', status: '401' })).toBe(3);
    expect(delta('svc_http_requests_total', { route: '/connect/introspect', method: 'POST', status: '401' })).toBe(1);
    // Unknown paths share one label, so scanners cannot grow the label space.
    expect(delta('svc_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(after).not.toContain('/no/such/path');
    // The previous scrape itself was counted; the failed scrapes were counted as 401.
    expect(count(after, 'svc_http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(delta('svc_http_request_duration_seconds_count', { route: '/connect/token' })).toBe(6);
  });
});

describe('metrics when the store fails', () => {
  let server: TestServer;
  let storeDown = false;
  beforeAll(async () => {
    const memory = createMemoryStore();
    const store: Store = {
      ...memory,
      add: (grant) => (storeDown ? Promise.reject(new StoreUnavailableError('connection refused')) : memory.add(grant)),
      commit: (batch) => (storeDown ? Promise.reject(new StoreUnavailableError('connection refused')) : memory.commit(batch)),
    };
    server = await startServer(
      {
        ...demoConfig,
        clients: [
          {
            clientId: 'ref-app',
            clientSecrets: [{ value: hashSecret('ref-app-secret') }],
            allowedGrantTypes: ['client_credentials'],
            allowedScopes: ['api1.read'],
            accessTokenType: 'reference',
          },
        ],
        metrics: { enabled: true },
      },
      { store },
    );
  });
  afterAll(async () => {
    await server?.close();
  });

  it('counts store errors, and the 503 they cause', async () => {
    const issue = () => postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic('ref-app', 'ref-app-secret') });
    expect((await issue()).status).toBe(200);
    const before = (await get(`${server.url}/metrics`)).text;
    storeDown = true;
    const failed = await issue();
    storeDown = false;
    expect(failed.status).toBe(503);
    expect(failed.body).toEqual({ error: 'temporarily_unavailable', error_description: 'The service is temporarily unavailable; try again later.' });
    const after = (await get(`${server.url}/metrics`)).text;
    expect(sample(before, 'svc_store_errors_total', {})).toBe(0);
    expect(sample(after, 'svc_store_errors_total', {})).toBe(1);
    expect(sample(after, 'svc_http_requests_total', { route: '/connect/token', method: 'POST', status: '503' })).toBe(1);
    // Nothing was issued, so nothing was counted as issued.
    expect(sample(after, 'svc_tokens_issued_total', { grant_type: 'client_credentials' })).toBe(1);
  });
});
