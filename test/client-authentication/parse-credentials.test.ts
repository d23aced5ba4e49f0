/**
 * Step 1, parse, with plain parsers: what the secret parsers find is handed on as is; two
 * methods in one request are `invalid_request` (RFC 6749 §2.3); a parser's refusal becomes the
 * endpoint's `invalid_client`; a certificate on the connection counts only when the request
 * carries nothing and the holder has a secret that could judge it (RFC 8705 §4).
 */
import { describe, expect, it } from 'vitest';
import { createCredentialParser } from '../../src/client-authentication/parse-credentials.js';
import { CLIENT_DENIED } from '../../src/client-authentication/refusal.js';
import { indexSecretValidators } from '../../src/client-authentication/secret-validator-index.js';
import { InvalidClient, OAuthError } from '../../src/oauth/errors.js';
import type { SecretParser } from '../../src/sdk/index.js';
import { parser, secret, source, validator } from './fakes.js';

const basic = parser('client_secret_basic', 'SharedSecret', 'basic');
const post = parser('client_secret_post', 'SharedSecret', 'client_secret');
const jwt = parser('private_key_jwt', 'JwtBearer', 'client_assertion');
const certificate = parser('tls_client_auth', 'X509Certificate', 'connection');
const index = indexSecretValidators([validator('SharedSecret', 'SharedSecret'), validator('X509Certificate', 'X509Name')]);
const noHolder = () => undefined;

async function failure(attempt: Promise<unknown>): Promise<OAuthError> {
  const err = await attempt.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(OAuthError);
  return err as OAuthError;
}

describe('parsing credentials', () => {
  const parse = createCredentialParser([basic, post, jwt, certificate], index.judges);

  it.each([
    ['the Basic header', { basic: 'web:s3cret' }, 'client_secret_basic', 'SharedSecret'],
    ['the form body', { client_secret: 'web:s3cret' }, 'client_secret_post', 'SharedSecret'],
    ['a client assertion', { client_assertion: 'web:a.b.c' }, 'private_key_jwt', 'JwtBearer'],
  ])('hands on what one parser found in %s, with its method', async (_where, params, method, type) => {
    const found = await parse(source(params), CLIENT_DENIED, noHolder);
    expect(found).toEqual({ parsed: { id: 'web', credential: expect.any(String), type }, method, fromConnection: false });
  });

  it('finds nothing in a request without credentials', async () => {
    expect(await parse(source({ client_id: 'web' }), CLIENT_DENIED, noHolder)).toBeUndefined();
  });

  it('refuses two methods in one request with invalid_request, naming both in the log only (RFC 6749 §2.3)', async () => {
    const err = await failure(parse(source({ basic: 'web:a', client_secret: 'web:a' }), CLIENT_DENIED, noHolder));
    expect(err.toJSON()).toEqual({ error: 'invalid_request', error_description: 'More than one client authentication method was used.' });
    expect(err.logDetail).toBe('methods: client_secret_basic, client_secret_post');
  });

  it("turns a parser's invalid_client into the endpoint's refusal, with a challenge for the header's scheme", async () => {
    const broken: SecretParser = { authenticationMethod: 'client_secret_basic', parse: () => { throw new InvalidClient('bad header', { logDetail: 'not base64' }); } };
    const err = await failure(createCredentialParser([broken], index.judges)(source({}, 'Basic !!!'), 'Said to every caller.', noHolder));
    expect(err.toJSON()).toEqual({ error: 'invalid_client', error_description: 'Said to every caller.' });
    expect(err.logDetail).toBe('not base64');
    expect(err.headers).toEqual({ 'WWW-Authenticate': 'Basic realm="svc"' });
  });

  it('lets any other error of a parser through as it is', async () => {
    const broken: SecretParser = { authenticationMethod: 'x', parse: () => { throw new TypeError('bug'); } };
    await expect(createCredentialParser([broken], index.judges)(source(), CLIENT_DENIED, noHolder)).rejects.toThrow(TypeError);
  });
});

describe('a certificate on the connection (RFC 8705)', () => {
  const parse = createCredentialParser([basic, certificate], index.judges);
  const withCertificate = (params: Record<string, string> = {}) => source(params, undefined, { clientCertificate: 'web:cert' as never });

  it('authenticates when the request itself carries no credentials and the holder has a certificate secret', async () => {
    const found = await parse(withCertificate(), CLIENT_DENIED, () => [secret('X509Name', 'CN=web')]);
    expect(found).toMatchObject({ method: 'tls_client_auth', fromConnection: true });
  });

  it('gives way to credentials in the request: the certificate then only binds tokens', async () => {
    const found = await parse(withCertificate({ basic: 'web:s3cret' }), CLIENT_DENIED, () => [secret('X509Name', 'CN=web')]);
    expect(found).toMatchObject({ method: 'client_secret_basic', fromConnection: false });
  });

  it('is no credential for a holder without a secret that could judge it (a public client, shared secrets only)', async () => {
    expect(await parse(withCertificate(), CLIENT_DENIED, () => [])).toBeUndefined();
    expect(await parse(withCertificate(), CLIENT_DENIED, () => [secret('SharedSecret', 'x')])).toBeUndefined();
  });

  it('is handed on for an id no holder has, so the refusal names an unknown client', async () => {
    expect(await parse(withCertificate(), CLIENT_DENIED, noHolder)).toMatchObject({ parsed: { id: 'web' }, fromConnection: true });
  });
});
