/**
 * JARM encoding with plain values: an outcome of the flow in `query.jwt` or `form_post.jwt` leaves
 * as one `response` parameter, a JWT of the service's key with the response parameters, `iss`,
 * `aud` the client and a short `exp`, for successes and errors; other outcomes pass unchanged.
 */
import { compactVerify, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizationResponse, errorResponse } from '../../src/authorize/authorization-response.js';
import type { ResponseTarget } from '../../src/authorize/authorization-request.js';
import { authorizationResponseLifetime, createJarm, type ResponseSealer } from '../../src/authorize/jarm.js';
import { AccessDenied } from '../../src/oauth/errors.js';
import type { SigningKey } from '../../src/oauth/keys/signing-key.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { keyRingOf, signingKeys } from '../oauth/signing-keys.js';
import { silent } from './steps/fakes.js';

const ISSUER = 'https://issuer.example';
const NOW_S = Date.UTC(2030, 0, 1, 12, 0, 0) / 1000;
const config = resolveConfig({
  issuer: ISSUER,
  signing: { idTokenAlgorithms: ['RS256', 'ES384'] },
  clients: [
    { clientId: 'web', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: [], redirectUris: ['https://web.example/cb'] },
    { clientId: 'fapi', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: [], redirectUris: ['https://fapi.example/cb'], authorizationSignedResponseAlg: 'ES384' },
  ],
}, '/');

let keys: Map<string, SigningKey>;
let seal: ResponseSealer;
beforeAll(async () => {
  keys = await signingKeys(['RS256', 'ES384']);
  seal = createJarm({
    issuer: ISSUER, clients: new Map(config.clients.map((c) => [c.clientId, c])), keyRing: keyRingOf(keys), clock: { now: () => NOW_S * 1000 }, logger: silent,
  });
});

const target = (overrides: Partial<ResponseTarget> = {}): ResponseTarget =>
  ({ clientId: 'web', redirectUri: 'https://web.example/cb?tenant=1', responseMode: 'query.jwt', state: 'st', ...overrides });

async function claimsOf(jwt: string, alg: string): Promise<Record<string, unknown>> {
  const { payload } = await compactVerify(jwt, keys.get(alg)!.publicKey);
  return JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
}

describe('JARM (query.jwt, form_post.jwt)', () => {
  it('query.jwt: one response parameter at the redirect URI (its own query kept), signed RS256 by default', async () => {
    const sent = await seal({ status: 200, response: authorizationResponse(ISSUER, target(), { code: 'the-code' }) });
    if (sent.response?.kind !== 'redirect') throw new Error('expected a redirect');
    const url = new URL(sent.response.location);
    expect([...url.searchParams.keys()]).toEqual(['tenant', 'response']);
    const jwt = url.searchParams.get('response')!;
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'RS256', kid: 'kid-RS256' });
    expect(await claimsOf(jwt, 'RS256')).toEqual({ code: 'the-code', state: 'st', iss: ISSUER, aud: 'web', iat: NOW_S, exp: NOW_S + authorizationResponseLifetime });
  });

  it('form_post.jwt: the form posts only response; an error is signed the same way', async () => {
    const sent = await seal({ status: 200, response: errorResponse(ISSUER, target({ responseMode: 'form_post.jwt', state: undefined }), new AccessDenied('The user denied the request.')) });
    if (sent.response?.kind !== 'form_post') throw new Error('expected a form post');
    expect(sent.response.action).toBe('https://web.example/cb?tenant=1');
    expect(sent.response.fields.map(([name]) => name)).toEqual(['response']);
    expect(await claimsOf(sent.response.fields[0]![1], 'RS256')).toEqual({
      error: 'access_denied', error_description: 'The user denied the request.', iss: ISSUER, aud: 'web', iat: NOW_S, exp: NOW_S + authorizationResponseLifetime,
    });
  });

  it('signs with the client\'s authorizationSignedResponseAlg', async () => {
    const sent = await seal({ status: 200, response: authorizationResponse(ISSUER, target({ clientId: 'fapi', redirectUri: 'https://fapi.example/cb' }), { code: 'c' }) });
    if (sent.response?.kind !== 'redirect') throw new Error('expected a redirect');
    const jwt = new URL(sent.response.location).searchParams.get('response')!;
    expect(decodeProtectedHeader(jwt).alg).toBe('ES384');
    expect(await claimsOf(jwt, 'ES384')).toMatchObject({ code: 'c', aud: 'fapi' });
  });

  it('plain modes and pages pass unchanged', async () => {
    const plain = { status: 200, response: authorizationResponse(ISSUER, target({ responseMode: 'query' }), { code: 'c' }) };
    expect(await seal(plain)).toBe(plain);
    const page = { status: 400, view: { kind: 'message', message: 'start-again' } } as const;
    expect(await seal(page)).toBe(page);
  });
});
