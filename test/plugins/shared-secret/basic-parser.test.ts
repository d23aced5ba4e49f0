/**
 * The client_secret_basic parser, called with plain values: RFC 7617 Basic credentials whose
 * halves are form-urlencoded first (RFC 6749 §2.3.1). Malformed credentials are invalid_client.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBasicParser } from '../../../plugins/shared-secret/basic-parser.js';
import { InvalidClient } from '../../../src/oauth/errors.js';
import type { CredentialSource } from '../../../src/sdk/contracts.js';

const parser = createBasicParser();
const source = (authorization: string | undefined): CredentialSource => ({ params: new Map(), authorization, endpoint: 'token' });
const parse = (authorization: string | undefined) => parser.parse(source(authorization));
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
/** RFC 6749 §2.3.1: application/x-www-form-urlencoded, as every compliant client sends it. */
const formEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
const header = (id: string, secret: string) => `Basic ${b64(`${formEncode(id)}:${formEncode(secret)}`)}`;

function rejection(authorization: string): unknown {
  try {
    parser.parse(source(authorization));
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('client_secret_basic parser', () => {
  it('names its authentication method', () => {
    expect(parser.authenticationMethod).toBe('client_secret_basic');
  });

  it('finds nothing without an Authorization header, or with another scheme', () => {
    expect(parse(undefined)).toBeUndefined();
    expect(parse('Bearer abc.def.ghi')).toBeUndefined();
    expect(parse('Digest username="m2m"')).toBeUndefined();
  });

  it('extracts id and secret as a SharedSecret', () => {
    expect(parse(header('m2m', 'm2m-secret'))).toEqual({ id: 'm2m', credential: 'm2m-secret', type: 'SharedSecret' });
  });

  it('accepts the scheme in any case', () => {
    expect(parse(`basic ${b64('m2m:s')}`)).toEqual({ id: 'm2m', credential: 's', type: 'SharedSecret' });
    expect(parse(`BASIC ${b64('m2m:s')}`)).toMatchObject({ id: 'm2m' });
  });

  it('form-decodes both halves: "+" is a space, %XX is a byte of UTF-8', () => {
    expect(parse(`Basic ${b64('my+client:a%2Bb%3Ac%25d+%C3%A9')}`)).toEqual({ id: 'my client', credential: 'a+b:c%d é', type: 'SharedSecret' });
  });

  it('splits at the first colon only: a secret may contain colons', () => {
    expect(parse(`Basic ${b64('m2m:a:b:c')}`)).toMatchObject({ id: 'm2m', credential: 'a:b:c' });
  });

  it('takes raw (unencoded) UTF-8 too', () => {
    expect(parse(`Basic ${b64('ünïcode:pässwörd')}`)).toMatchObject({ id: 'ünïcode', credential: 'pässwörd' });
  });

  it('accepts an empty secret (it just never matches a hash)', () => {
    expect(parse(`Basic ${b64('m2m:')}`)).toMatchObject({ id: 'm2m', credential: '' });
  });

  it('round-trips any id and secret a compliant client encodes', () => {
    const char = fc.oneof(fc.constantFrom(':', '+', '%', ' ', 'é', '€', '😀', '&', '=', '/'), fc.string({ minLength: 1, maxLength: 1 }));
    const text = (minLength: number) => fc.array(char, { minLength, maxLength: 30 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(text(1), text(0), (id, secret) => {
        expect(parse(header(id, secret))).toEqual({ id, credential: secret, type: 'SharedSecret' });
      }),
    );
  });

  it('accepts an id and a secret of exactly 100 characters', () => {
    expect(parse(header('i'.repeat(100), 's'.repeat(100)))).toMatchObject({ id: 'i'.repeat(100), credential: 's'.repeat(100) });
  });

  it.each([
    ['not base64', 'Basic !!not*base64!!', 'Basic credentials: not base64'],
    ['nothing after the scheme', 'Basic', 'Basic credentials: not base64'],
    ['an impossible base64 length', 'Basic abcde', 'Basic credentials: not base64'],
    ['no colon', `Basic ${b64('m2m-without-colon')}`, 'Basic credentials: no colon'],
    ['bad percent-encoding in the secret', `Basic ${b64('m2m:%E0%A4%A')}`, 'Basic credentials: bad percent-encoding'],
    ['bad percent-encoding in the id', `Basic ${b64('%zz:secret')}`, 'Basic credentials: bad percent-encoding'],
    ['an empty id', `Basic ${b64(':secret')}`, 'Basic credentials: empty or too long'],
    ['an id over 100 characters', header('i'.repeat(101), 's'), 'Basic credentials: empty or too long'],
    ['a secret over 100 characters', header('m2m', 's'.repeat(101)), 'Basic credentials: empty or too long'],
  ])('throws invalid_client for %s, with the reason for the log only', (_case, authorization, logDetail) => {
    const err = rejection(authorization);
    expect(err).toBeInstanceOf(InvalidClient);
    expect(err).toMatchObject({ code: 'invalid_client', status: 401, logDetail });
    expect((err as InvalidClient).description).toBe('Client authentication failed.');
  });

  it('never puts the secret into an error', () => {
    const err = rejection(header('m2m', `${'x'.repeat(95)}-SeCrEt`)) as InvalidClient;
    expect(JSON.stringify({ ...err, message: err.message, detail: err.logDetail })).not.toContain('SeCrEt');
  });
});
