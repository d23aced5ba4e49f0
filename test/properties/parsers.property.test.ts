/**
 * Property tests: for arbitrary input the parsers either return flat strings or throw an OAuth
 * error, never anything else.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFormParams, repeatableParameters, repeatedValues } from '../../src/oauth/form-params.js';
import { isOAuthError } from '../../src/oauth/errors.js';
import { createBasicParser } from '../../plugins/shared-secret/basic-parser.js';
import { createPostBodyParser } from '../../plugins/shared-secret/post-body-parser.js';
import { createAssertionParser } from '../../plugins/private-key-jwt/assertion-parser.js';
import { readOptions } from '../../plugins/private-key-jwt/options.js';

function outcome(run: () => unknown): 'ok' | 'oauth-error' {
  try {
    run();
    return 'ok';
  } catch (err) {
    if (isOAuthError(err) && err.status < 500) return 'oauth-error';
    throw err;
  }
}

const formish = fc.oneof(
  fc.string(),
  fc.array(fc.tuple(fc.string(), fc.string())).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
  fc.array(fc.tuple(fc.constantFrom('a[]', 'a[b]', 'a.b', '__proto__', 'constructor', 'grant_type', 'scope', '%', '%zz', '+'), fc.string())).map(
    (pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'),
  ),
);

describe('form parameters', () => {
  it('are always flat strings with literal names, or an invalid_request', () => {
    fc.assert(
      fc.property(formish, (body) => {
        let params: Map<string, string> | undefined;
        const result = outcome(() => {
          params = parseFormParams(body, 50);
        });
        if (result === 'ok') {
          for (const [name, value] of params!) {
            expect(typeof name).toBe('string');
            expect(typeof value).toBe('string');
            expect(value).not.toBe('');
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never lets a repeated name through, but for a repeatable one', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }).filter((n) => !repeatableParameters.has(n)), fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (name, a, b) => {
        const body = `${encodeURIComponent(name)}=${encodeURIComponent(a)}&${encodeURIComponent(name)}=${encodeURIComponent(b)}`;
        expect(() => parseFormParams(body, 50)).toThrow(/more than once/);
      }),
    );
  });
});

describe('a repeatable parameter (RFC 8707 resource)', () => {
  it('gives back every non-empty value in order, each one value whatever it holds', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 10 }), (values) => {
        const body = values.map((v) => `resource=${encodeURIComponent(v)}`).join('&');
        const expected = values.filter((v) => v !== '').map((v) => v.replaceAll('\n', ' '));
        expect(repeatedValues(parseFormParams(body, 50), 'resource')).toEqual(expected);
      }),
    );
  });
});

describe('client credential parsers', () => {
  const basic = createBasicParser();
  const post = createPostBodyParser();
  const assertion = createAssertionParser({ options: readOptions({}) });
  const source = (authorization: string | undefined, params: Map<string, string>) => ({ authorization, params, endpoint: 'token' });

  it('the Basic parser returns credentials or throws invalid_client for any header', () => {
    const header = fc.oneof(
      fc.string(),
      fc.string().map((s) => `Basic ${s}`),
      fc.string().map((s) => `Basic ${Buffer.from(s).toString('base64')}`),
      fc.tuple(fc.string(), fc.string()).map(([a, b]) => `Basic ${Buffer.from(`${a}:${b}`).toString('base64')}`),
    );
    fc.assert(
      fc.property(header, (h) => {
        let parsed: unknown;
        const result = outcome(() => {
          parsed = basic.parse(source(h, new Map()));
        });
        if (result === 'ok' && parsed !== undefined) {
          const p = parsed as { id: string; credential: string; type: string };
          expect(p.type).toBe('SharedSecret');
          expect(p.id.length).toBeGreaterThan(0);
          expect(p.id.length).toBeLessThanOrEqual(100);
          expect(p.credential.length).toBeLessThanOrEqual(100);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('the body and assertion parsers never throw anything but an OAuth error', () => {
    const params = fc
      .dictionary(fc.constantFrom('client_id', 'client_secret', 'client_assertion', 'client_assertion_type', 'x'), fc.oneof(
        fc.string(),
        fc.constant('urn:ietf:params:oauth:client-assertion-type:jwt-bearer'),
        fc.tuple(fc.base64String(), fc.base64String(), fc.base64String()).map((parts) => parts.join('.')),
        fc.jsonValue().map((v) => `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from(JSON.stringify(v)).toString('base64url')}.sig`),
      ))
      .map((d) => new Map(Object.entries(d)));
    fc.assert(
      fc.property(params, (p) => {
        outcome(() => post.parse(source(undefined, p)));
        outcome(() => assertion.parse(source(undefined, p)));
      }),
      { numRuns: 2000 },
    );
  });
});
