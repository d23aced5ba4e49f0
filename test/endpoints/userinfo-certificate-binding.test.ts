/**
 * UserInfo honours certificate-bound tokens (RFC 8705 §3): a token with `cnf["x5t#S256"]` is
 * accepted only with the client certificate it names; without it, or with another, 401
 * `invalid_token` with its challenge.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load.js';
import { createUserInfoEndpoint } from '../../src/endpoints/userinfo.js';
import type { DpopProofValidator } from '../../src/sender-binding/dpop-proof-validator.js';
import { isOAuthError } from '../../src/oauth/errors.js';
import type { AccessTokenClaims, ClientCertificate, TokenValidator } from '../../src/sdk/contracts.js';
import { makePki, type Pki } from '../support/certificates.js';
import { presented } from '../plugins/mutual-tls/helpers.js';

let pki: Pki;
beforeAll(async () => {
  pki = await makePki();
});

const config = checkConfig({ identityResources: [{ name: 'openid', claims: ['sub'] }, { name: 'profile', claims: ['name'] }] }, '/srv/svc');
const claims = (extra: Record<string, unknown>): AccessTokenClaims => ({
  iss: 'https://as', sub: 'alice', client_id: 'app', scope: 'openid profile', aud: 'x', exp: 2e9, iat: 1, jti: 'j', auth_time: 1, ...extra,
} as AccessTokenClaims);
const endpointFor = (tokenClaims: AccessTokenClaims) => {
  const tokenValidator: TokenValidator = { validateAccessToken: async () => ({ active: true, claims: tokenClaims, format: 'jwt' }) };
  // No DPoP here: these tokens are not DPoP-bound and come as Bearer tokens.
  const dpop: DpopProofValidator = { algorithms: ['ES256'], nonceRequired: false, verify: async () => undefined, check: async () => undefined, currentNonce: async () => undefined };
  return createUserInfoEndpoint({
    config, tokenValidator, dpop,
    users: { validate: async () => undefined, findBySubject: async (subjectId) => ({ subjectId, username: 'alice', claims: { name: 'Alice' } }) },
  });
};
const ask = (tokenClaims: AccessTokenClaims, clientCertificate?: ClientCertificate) =>
  endpointFor(tokenClaims)({ authorization: 'Bearer t', params: new Map(), method: 'GET', ...(clientCertificate ? { clientCertificate } : {}) });

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(isOAuthError(err)).toBe(true);
  const e = err as { code: string; status: number; headers: Record<string, string> };
  return { code: e.code, status: e.status, challenge: e.headers['WWW-Authenticate'] };
}

const invalidToken = {
  code: 'invalid_token', status: 401,
  challenge: 'Bearer realm="svc", error="invalid_token", error_description="The access token is missing or invalid."',
};

describe('UserInfo and certificate-bound tokens', () => {
  it('answers a bound token presented with its certificate', async () => {
    expect(await ask(claims({ cnf: { 'x5t#S256': pki.partner.thumbprint } }), presented(pki.partner))).toEqual({ sub: 'alice', name: 'Alice' });
  });

  it('refuses a bound token without a certificate, and with another certificate', async () => {
    const bound = claims({ cnf: { 'x5t#S256': pki.partner.thumbprint } });
    expect(await refusal(ask(bound))).toEqual(invalidToken);
    expect(await refusal(ask(bound, presented(pki.stranger)))).toEqual(invalidToken);
  });

  it('answers an unbound token whatever certificate comes with it', async () => {
    expect(await ask(claims({}), presented(pki.stranger))).toEqual({ sub: 'alice', name: 'Alice' });
  });
});
