import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { createAssertionParser } from '../../../plugins/private-key-jwt/assertion-parser.js';
import { InvalidClient, type CredentialSource, type OAuthError } from 'svc/sdk';
import { JWT_BEARER, makeDeps, rawToken } from './helpers.js';

const parser = createAssertionParser(makeDeps());
const assertion = rawToken({ alg: 'ES256' }, { iss: 'app', sub: 'app', aud: 'x' }, 'c2ln');

function source(params: Record<string, string>, endpoint = 'token'): CredentialSource {
  return { params: new Map(Object.entries(params)), authorization: undefined, endpoint };
}

async function parseError(params: Record<string, string>): Promise<OAuthError> {
  try {
    await parser.parse(source(params));
  } catch (error) {
    return error as OAuthError;
  }
  throw new Error('parse did not throw');
}

describe('assertion parser', () => {
  it('is private_key_jwt and advertises the allowed algorithms', async () => {
    expect(parser.authenticationMethod).toBe('private_key_jwt');
    expect(parser.discoveryMetadata).toEqual({
      token_endpoint_auth_signing_alg_values_supported: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'],
    });
    const narrowed = createAssertionParser(makeDeps({ pluginOptions: { algorithms: ['ES256', 'EdDSA'] } }));
    expect(narrowed.discoveryMetadata).toEqual({ token_endpoint_auth_signing_alg_values_supported: ['ES256', 'EdDSA'] });
  });

  it('returns undefined when no assertion is sent', async () => {
    expect(await parser.parse(source({}))).toBeUndefined();
    expect(await parser.parse(source({ client_id: 'app', client_secret: 's' }))).toBeUndefined();
    expect(await parser.parse(source({ client_assertion_type: '', client_assertion: '' }))).toBeUndefined();
  });

  it('returns the sub as id, the assertion as credential', async () => {
    const params = { client_assertion_type: JWT_BEARER, client_assertion: assertion };
    expect(await parser.parse(source(params))).toEqual({ id: 'app', credential: assertion, type: JWT_BEARER, decoded: expect.objectContaining({ claims: expect.objectContaining({ sub: 'app' }) }) });
    expect(await parser.parse(source({ ...params, client_id: 'app' }))).toEqual({ id: 'app', credential: assertion, type: JWT_BEARER, decoded: expect.objectContaining({ claims: expect.objectContaining({ sub: 'app' }) }) });
  });

  it('hands an assertion another party issued (iss and sub not the client) to the client named by client_id', async () => {
    const workload = rawToken({ alg: 'RS256' }, { iss: 'https://kubernetes.default.svc', sub: 'system:serviceaccount:payments:api', aud: 'x' }, 'c2ln');
    expect(await parser.parse(source({ client_assertion_type: JWT_BEARER, client_assertion: workload, client_id: 'payments-api' }))).toEqual({
      id: 'payments-api', credential: workload, type: JWT_BEARER, decoded: expect.objectContaining({ claims: expect.objectContaining({ sub: 'system:serviceaccount:payments:api' }) }),
    });
  });

  it('reads a signed JWT without verifying it', async () => {
    const signed = await new SignJWT({ sub: 'app' }).setProtectedHeader({ alg: 'HS256' }).sign(new Uint8Array(32));
    expect(await parser.parse(source({ client_assertion_type: JWT_BEARER, client_assertion: signed }))).toEqual({
      id: 'app',
      credential: signed,
      // The parser hands the decoded assertion on, so the validator need not decode it again.
      decoded: expect.objectContaining({ header: { alg: 'HS256' }, claims: { sub: 'app' } }),
      type: JWT_BEARER,
    });
  });

  it.each([
    [{ client_assertion_type: JWT_BEARER, client_assertion: assertion, client_id: 'other' }, 'client_id "other" differs from the assertion\'s sub "app"'],
    [{ client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer', client_assertion: assertion }, 'unsupported client_assertion_type "urn:ietf:params:oauth:client-assertion-type:saml2-bearer"'],
    [{ client_assertion_type: JWT_BEARER }, 'client_assertion_type sent without client_assertion'],
    [{ client_assertion_type: JWT_BEARER, client_assertion: '' }, 'client_assertion_type sent without client_assertion'],
    [{ client_assertion: assertion }, 'client_assertion sent without client_assertion_type'],
    [{ client_assertion_type: JWT_BEARER, client_assertion: rawToken({ alg: 'ES256' }, { iss: 'app' }, 'c2ln') }, 'client_assertion has no sub naming the client (sub undefined)'],
    [{ client_assertion_type: JWT_BEARER, client_assertion: rawToken({ alg: 'ES256' }, { sub: 42 } as never, 'c2ln') }, 'client_assertion has no sub naming the client (sub 42)'],
    [{ client_assertion_type: JWT_BEARER, client_assertion: 'not-a-jwt' }, 'client_assertion is not a JWT: not three dot-separated parts'],
  ])('throws InvalidClient for %j', async (params, detail) => {
    const error = await parseError(params);
    expect(error).toBeInstanceOf(InvalidClient);
    expect(error.code).toBe('invalid_client');
    expect(error.status).toBe(401);
    expect(error.description).toBe('Client authentication failed.');
    expect(error.logDetail).toBe(`private_key_jwt: ${detail}`);
  });

  it('never puts the assertion into the log detail', async () => {
    const error = await parseError({ client_assertion_type: JWT_BEARER, client_assertion: assertion, client_id: 'other' });
    expect(error.logDetail).not.toContain(assertion);
  });
});
