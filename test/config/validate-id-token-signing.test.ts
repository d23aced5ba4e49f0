/**
 * Start-up checks and defaults of the ID token algorithms: `signing.idTokenAlgorithms` and a
 * client's `allowedIdentityTokenSigningAlgorithms`; each problem names the field.
 */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { validateUserConfig } from '../../src/config/validate.js';

const client = { clientId: 'web', requireClientSecret: false, allowedGrantTypes: ['password'], allowedScopes: [] as string[] };

describe('ID token algorithms in the config', () => {
  it('defaults to RS256 for the service and no choice for a client', () => {
    const resolved = resolveConfig({ clients: [client] }, '/');
    expect(resolved.signing.idTokenAlgorithms).toEqual(['RS256']);
    expect(resolved.clients[0]!.allowedIdentityTokenSigningAlgorithms).toEqual([]);
  });

  it('keeps what the user chose', () => {
    const user = { signing: { idTokenAlgorithms: ['RS256', 'ES256'] as ['RS256', 'ES256'] }, clients: [{ ...client, allowedIdentityTokenSigningAlgorithms: ['ES256' as const] }] };
    expect(validateUserConfig(user)).toEqual([]);
    const resolved = resolveConfig(user, '/');
    expect(resolved.signing.idTokenAlgorithms).toEqual(['RS256', 'ES256']);
    expect(resolved.clients[0]!.allowedIdentityTokenSigningAlgorithms).toEqual(['ES256']);
  });

  it('refuses an unknown or symmetric algorithm, a repeated one and a list without RS256, naming each field', () => {
    expect(validateUserConfig({ signing: { idTokenAlgorithms: ['ES256', 'HS256', 'ES256'] } })).toEqual([
      'signing.idTokenAlgorithms[1]: unknown algorithm "HS256" (allowed: ES256, ES384, ES512, RS256, RS384, RS512, PS256, PS384, PS512, EdDSA)',
      'signing.idTokenAlgorithms[2]: "ES256" is listed twice',
      'signing.idTokenAlgorithms: must include "RS256", the algorithm every OpenID Connect client accepts (OpenID Connect Discovery §3), e.g. ["RS256", "ES256"]',
    ]);
    expect(validateUserConfig({ signing: { idTokenAlgorithms: 'RS256' } })).toEqual([expect.stringMatching(/^signing\.idTokenAlgorithms: expected an array/)]);
  });

  it("refuses a client's algorithm the service does not sign ID tokens with", () => {
    expect(validateUserConfig({ clients: [{ ...client, allowedIdentityTokenSigningAlgorithms: ['ES256'] }] })).toEqual([
      'clients[0].allowedIdentityTokenSigningAlgorithms[0]: "ES256" is not one of signing.idTokenAlgorithms (RS256); the service has keys for those only, so add it there',
    ]);
    expect(validateUserConfig({ signing: { idTokenAlgorithms: ['RS256', 'PS256'] }, clients: [{ ...client, allowedIdentityTokenSigningAlgorithms: ['none'] }] })).toEqual([
      'clients[0].allowedIdentityTokenSigningAlgorithms[0]: "none" is not one of signing.idTokenAlgorithms (RS256, PS256); the service has keys for those only, so add it there',
    ]);
  });
});
