/**
 * parseFormParams: application/x-www-form-urlencoded into flat strings. Names stay literal
 * (no qs: `a[]` and `a.b` are names, never arrays or objects), a repeated name is rejected
 * (RFC 6749 §3.2), values are capped, empty values count as omitted (RFC 6749 §3.1).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildParameterTable, defaultParameterCap, hostParameters, parseFormParams } from '../../src/oauth/form-params.js';
import sharedSecret from '../../plugins/shared-secret/index.js';
import privateKeyJwt from '../../plugins/private-key-jwt/index.js';
import { readOptions } from '../../plugins/private-key-jwt/options.js';

// The table a service with the two first-party client authentication plugins builds.
const parsers = [
  ...(sharedSecret.secretParsers ?? []).map((f) => f({} as never)),
  ...(privateKeyJwt.secretParsers ?? []).map((f) => f({ options: readOptions({}) } as never)),
] as Array<{ parameters?: readonly { name: string; maxLength: number; credential?: boolean }[] }>;
const table = buildParameterTable([...hostParameters, ...parsers.flatMap((p) => p.parameters ?? [])]);
import { InvalidRequest } from '../../src/oauth/errors.js';

const parse = (body: string, max = 50) => Object.fromEntries(parseFormParams(body, max, table));

function rejection(body: string, max = 50): InvalidRequest {
  try {
    parseFormParams(body, max, table);
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidRequest);
    return err as InvalidRequest;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

describe('parseFormParams', () => {
  it('parses name=value pairs into a map of strings', () => {
    expect(parse('grant_type=client_credentials&scope=api1.read+api1.write')).toEqual({
      grant_type: 'client_credentials',
      scope: 'api1.read api1.write',
    });
  });

  it('decodes "+" as a space and %XX as UTF-8, in names and values', () => {
    expect(parse('my+name=a%2Bb%26c%3Dd+%C3%A9&%C3%BC=1')).toEqual({ 'my name': 'a+b&c=d é', ü: '1' });
  });

  it('keeps qs-style names literal and every value a string', () => {
    const params = parse('a[]=1&a.b=2&c[x][y]=3&d[0]=4&__proto__=5&constructor=6');
    expect(params).toEqual({ 'a[]': '1', 'a.b': '2', 'c[x][y]': '3', 'd[0]': '4', ['__proto__']: '5', constructor: '6' });
    expect(Object.values(params).every((v) => typeof v === 'string')).toBe(true);
  });

  it('returns only strings, whatever the body', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (body) => {
        let params: Map<string, string>;
        try {
          params = parseFormParams(body, 1000);
        } catch (err) {
          expect(err).toBeInstanceOf(InvalidRequest);
          return;
        }
        for (const [name, value] of params) {
          expect(typeof name).toBe('string');
          expect(typeof value).toBe('string');
        }
      }),
    );
  });

  it('drops empty values: a parameter sent empty is omitted', () => {
    expect(parse('grant_type=client_credentials&scope=&client_id')).toEqual({ grant_type: 'client_credentials' });
  });

  it('tolerates malformed percent-encoding without throwing', () => {
    expect(parse('x=%zz&y=%E0%A4%A')).toEqual({ x: '%zz', y: expect.any(String) });
  });

  it.each(['grant_type=a&grant_type=b', 'scope=a&x=1&scope=a', 'scope=&scope=x'])(
    'rejects a repeated parameter of the protocol, naming it: %s',
    (body) => {
      const name = decodeURIComponent(body.split('=')[0]!);
      const err = rejection(body);
      expect(err.code).toBe('invalid_request');
      expect(err.status).toBe(400);
      expect(err.description).toBe(`Parameter ${name} is included more than once.`);
    },
  );

  it.each(['a[]=1&a[]=2', '%0A%1Bx=1&%0A%1Bx=2', '%22%5C=1&%22%5C=2', `${'n'.repeat(60)}=1&${'n'.repeat(60)}=2`])(
    'never echoes the name of any other repeated parameter (RFC 6749 §5.2); the log detail names it: %s',
    (body) => {
      const err = rejection(body);
      expect(err.description).toBe('A parameter is included more than once.');
      expect(err.logDetail).toContain(JSON.stringify(decodeURIComponent(body.split('=')[0]!)).slice(0, 30));
    },
  );

  it.each([
    ['client_id', 100],
    ['client_secret', 100],
    ['scope', 300],
    ['client_assertion', 51_200],
  ])('caps %s at %i characters', (name, cap) => {
    expect(table.caps.get(name)).toBe(cap);
    expect(parse(`${name}=${'x'.repeat(cap)}`)[name]).toHaveLength(cap);
    expect(rejection(`${name}=${'x'.repeat(cap + 1)}`).description).toBe(`Parameter ${name} is too long (at most ${cap} characters).`);
  });

  it('caps the decoded length, not the encoded one', () => {
    expect(parse(`client_id=${'%C3%A9'.repeat(100)}`).client_id).toBe('é'.repeat(100));
  });

  it('caps any other parameter at the default cap', () => {
    expect(defaultParameterCap).toBe(2048);
    expect(parse(`custom=${'x'.repeat(2048)}`).custom).toHaveLength(2048);
    expect(rejection(`custom=${'x'.repeat(2049)}`).description).toBe('A parameter is too long (at most 2048 characters).');
  });

  it('rejects more parameters than allowed, counting empty ones', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `p${i}=`).join('&');
    expect(parse(ten, 10)).toEqual({});
    expect(rejection(`${ten}&p10=1`, 10).description).toBe('Too many parameters (at most 10).');
  });

  it('parses an empty body to no parameters', () => {
    expect(parse('')).toEqual({});
  });
});
