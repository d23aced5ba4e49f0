/**
 * RFC 9701 without a server: which Accept headers ask for the JWT answer, and what the signed
 * answer says (its header, who it is from and for, and RFC 7662's JSON inside).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { createIntrospectionSigner, wantsJwtResponse } from '../../src/endpoints/introspection-jwt.js';
import { tracingOff } from '../../src/tracing/tracing.js';
import type { SigningKey } from '../../src/oauth/keys/signing-key.js';
import { keyRingOf, signingKeys } from '../oauth/signing-keys.js';

describe('wantsJwtResponse (RFC 9701 §4)', () => {
  it.each([
    ['application/token-introspection+jwt', true],
    ['application/json, application/token-introspection+jwt', true],
    ['Application/Token-Introspection+JWT', true],
    ['application/token-introspection+jwt;q=0.5, application/json;q=1', true],
  ])('asks for the JWT with %j', (accept, expected) => {
    expect(wantsJwtResponse(accept)).toBe(expected);
  });

  it.each([
    [undefined],
    ['application/json'],
    ['*/*'],
    ['application/*'],
    ['application/token-introspection+jwt;q=0'],
    ['application/token-introspection+jwt-not'],
  ])('keeps RFC 7662 JSON for %j', (accept) => {
    expect(wantsJwtResponse(accept)).toBe(false);
  });
});

describe('the signed answer (RFC 9701 §5)', () => {
  let keys: Map<string, SigningKey>;
  beforeAll(async () => {
    keys = await signingKeys(['RS256', 'ES256']);
  });

  const api = { name: 'billing', scopes: ['billing.read'], secrets: [] };
  const publicKeyOf = (alg: string) => keys.get(alg)!.publicKey;

  it('is from the issuer, for the API, typed token-introspection+jwt, with the answer in token_introspection', async () => {
    const signer = createIntrospectionSigner({
      issuer: 'https://issuer.example', keyRing: keyRingOf(keys), clock: { now: () => 1_700_000_000_500 }, tracing: tracingOff,
      algorithmFor: () => 'RS256',
    });
    const jwt = await signer.sign(api, { active: true, scope: 'billing.read', client_id: 'shop' });
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'RS256', typ: 'token-introspection+jwt', kid: 'kid-RS256' });
    const { payload } = await jwtVerify(jwt, publicKeyOf('RS256'), { issuer: 'https://issuer.example', audience: 'billing', typ: 'token-introspection+jwt' });
    expect(payload).toEqual({
      iss: 'https://issuer.example', aud: 'billing', iat: 1_700_000_000,
      token_introspection: { active: true, scope: 'billing.read', client_id: 'shop' },
    });
  });

  it('signs with the algorithm chosen for the API', async () => {
    const signer = createIntrospectionSigner({
      issuer: 'https://issuer.example', keyRing: keyRingOf(keys), clock: { now: () => 0 }, tracing: tracingOff,
      algorithmFor: (a) => (a.name === 'billing' ? 'ES256' : 'RS256'),
    });
    const jwt = await signer.sign(api, { active: false });
    expect(decodeProtectedHeader(jwt).alg).toBe('ES256');
    const { payload } = await jwtVerify(jwt, publicKeyOf('ES256'));
    expect(payload.token_introspection).toEqual({ active: false });
  });
});
