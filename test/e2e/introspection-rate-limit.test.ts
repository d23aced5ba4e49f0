/**
 * RFC 7662 §4: the introspection endpoint must not be a token-scanning oracle. Each API resource
 * may get only so many inactive answers (unknown, expired or other APIs' tokens) per window;
 * past that it gets 429 with Retry-After until the window ends. Live tokens are never counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { manualClock } from '../device/helpers.js';
import { demoConfig } from '../support/demo-config.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';

const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
let server: TestServer;
let live: string;
beforeAll(async () => {
  server = await startServer({ ...demoConfig, introspectionLimit: { maxInactive: 3, window: 60 } }, { clock });
  const res = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials', scope: 'api1.read' }, { authorization: basic('m2m', 'm2m-secret') });
  live = res.body.access_token as string;
});
afterAll(() => server.close());

const introspect = (token: string, api = 'api1') =>
  postForm(`${server.url}/connect/introspect`, { token }, { authorization: basic(api, `${api}-secret`) });
const randomToken = (): string => randomBytes(32).toString('base64url');

describe('introspection rate limit', () => {
  it('never counts live tokens', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await introspect(live);
      expect(res.status).toBe(200);
      expect(res.body.active).toBe(true);
    }
  });

  it('answers 429 with Retry-After once an API has had its inactive answers for the window', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await introspect(randomToken());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ active: false });
    }
    const flood = await introspect(randomToken());
    expect(flood.status).toBe(429);
    expect(flood.headers.get('retry-after')).toBe('60');
    expect(flood.body).toEqual({ error: 'temporarily_unavailable', error_description: 'Too many inactive tokens introspected; retry after 60 seconds.' });
    // Until the window ends the API is refused whatever it sends: a scanner learns nothing more.
    expect((await introspect(live)).status).toBe(429);
  });

  it('counts per API: another API is not affected', async () => {
    const res = await introspect(randomToken(), 'backend');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ active: false });
  });

  it('lets the API in again when the window ends', async () => {
    clock.advance(30);
    const waiting = await introspect(live);
    expect(waiting.status).toBe(429);
    expect(waiting.headers.get('retry-after')).toBe('30');
    clock.advance(30);
    const res = await introspect(live);
    expect(res.status).toBe(200);
    expect(res.body.active).toBe(true);
  });
});
