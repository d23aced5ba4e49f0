/** The client_secret_post parser, called with plain values. */
import { describe, expect, it } from 'vitest';
import { createPostBodyParser } from '../../../plugins/shared-secret/post-body-parser.js';
import { InvalidClient } from '../../../src/oauth/errors.js';
import type { CredentialSource } from '../../../src/sdk/contracts.js';

const parser = createPostBodyParser();
const parse = (params: Record<string, string>, authorization?: string) =>
  parser.parse({ params: new Map(Object.entries(params)), authorization, endpoint: 'token' } satisfies CredentialSource);

describe('client_secret_post parser', () => {
  it('names its authentication method', () => {
    expect(parser.authenticationMethod).toBe('client_secret_post');
  });

  it('extracts client_id and client_secret as a SharedSecret', () => {
    expect(parse({ grant_type: 'client_credentials', client_id: 'm2m', client_secret: 'p:a+s%s' })).toEqual({
      id: 'm2m',
      credential: 'p:a+s%s',
      type: 'SharedSecret',
    });
  });

  it('finds nothing without client_secret, even with a client_id (a public client, or another method)', () => {
    expect(parse({})).toBeUndefined();
    expect(parse({ client_id: 'm2m' })).toBeUndefined();
    expect(parse({ client_id: 'm2m', client_assertion: 'x.y.z' })).toBeUndefined();
  });

  it('ignores the Authorization header (that is the Basic parser’s job)', () => {
    expect(parse({}, `Basic ${Buffer.from('m2m:secret').toString('base64')}`)).toBeUndefined();
  });

  it('throws invalid_client for client_secret without client_id', () => {
    expect(() => parse({ client_secret: 'secret' })).toThrow(InvalidClient);
    expect(() => parse({ client_secret: 'secret' })).toThrow(expect.objectContaining({ code: 'invalid_client', logDetail: 'client_secret without client_id' }));
  });
});
