/**
 * Property test over HTTP: arbitrary form bodies and Authorization headers sent to every
 * form endpoint never produce a 500, never issue a token, and always answer JSON with an
 * OAuth error code.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { demoConfig } from '../support/demo-config.js';

// No value is a valid secret, so no request can legitimately succeed in getting a token.
const endpoints = ['/connect/token', '/connect/introspect', '/connect/revocation', '/connect/deviceauthorization'];
const knownErrors = new Set([
  'invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope',
  'invalid_target', 'unsupported_token_type', 'temporarily_unavailable',
]);

const names = fc.constantFrom(
  'grant_type', 'client_id', 'client_secret', 'scope', 'token', 'token_type_hint', 'client_assertion', 'client_assertion_type',
  'username', 'password', 'refresh_token', 'device_code', 'subject_token', 'subject_token_type', 'a[]', 'a[b]', '__proto__',
);
const values = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('client_credentials', 'password', 'refresh_token', 'delegation', 'm2m', 'api1', 'api1.read',
    'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', 'urn:ietf:params:oauth:grant-type:device_code'),
);
const body = fc.oneof(
  fc.array(fc.tuple(names, values), { maxLength: 8 }).map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
  fc.string({ maxLength: 200 }),
);
const authorization = fc.option(
  fc.oneof(fc.string({ maxLength: 60 }), fc.tuple(values, values).map(([a, b]) => `Basic ${Buffer.from(`${a}:${b}`).toString('base64')}`)),
  { nil: undefined },
);

describe('every form endpoint, for arbitrary input', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A throttle high enough that random failures do not turn into 429s mid-run.
    server = await startServer({ ...demoConfig, authThrottle: { pairThreshold: 100_000, addressThreshold: 100_000 } });
  });
  afterAll(() => server.close());

  it('answers JSON OAuth errors, never a 500 and never a token', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...endpoints), body, authorization, async (path, form, auth) => {
        const res = await fetch(server.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
          body: form,
        });
        const text = await res.text();
        expect(res.status).toBeLessThan(500);
        // Revocation answers 200 with an empty body (RFC 7009 §2.2).
        const json = (text === '' && res.status === 200 ? {} : JSON.parse(text)) as Record<string, unknown>;
        expect(json.access_token).toBeUndefined();
        expect(json.device_code).toBeUndefined();
        if (res.status !== 200) expect(knownErrors.has(json.error as string)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
