/**
 * Start-up checks and defaults of the DPoP settings (issue 17): a bad `dpop` object or client
 * `requireDPoP` stops start-up with a message naming the field.
 */
import { describe, expect, it } from 'vitest';
import { validateUserConfig } from '../../src/config/validate.js';
import { resolveConfig } from '../../src/config/resolve.js';

const client = { clientId: 'm2m', requireClientSecret: false, allowedGrantTypes: ['password'], allowedScopes: [] as string[] };

describe('dpop config', () => {
  it('fills in the defaults', () => {
    const resolved = resolveConfig({ clients: [client] }, '/');
    expect(resolved.dpop).toEqual({
      signingAlgValues: ['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519'], proofMaxAge: 300, clockSkew: 10, requireNonce: false, nonceLifetime: 300,
    });
    expect(resolved.clients[0]!.requireDPoP).toBe(false);
    expect(Object.isFrozen(resolved.dpop.signingAlgValues)).toBe(true);
  });

  it('keeps what the user chose', () => {
    const resolved = resolveConfig({ dpop: { signingAlgValues: ['ES256'], requireNonce: true }, clients: [{ ...client, requireDPoP: true }] }, '/');
    expect(resolved.dpop).toMatchObject({ signingAlgValues: ['ES256'], requireNonce: true, proofMaxAge: 300 });
    expect(resolved.clients[0]!.requireDPoP).toBe(true);
  });

  it('refuses a symmetric or unknown algorithm, an empty list and bad numbers, naming each field', () => {
    expect(validateUserConfig({ dpop: { signingAlgValues: ['ES256', 'HS256', 'none'], proofMaxAge: 0, clockSkew: -1, requireNonce: 'yes', nonceLifetime: 5 } })).toEqual([
      'dpop.signingAlgValues[1]: unknown or symmetric algorithm "HS256" (allowed: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519)',
      'dpop.signingAlgValues[2]: unknown or symmetric algorithm "none" (allowed: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519)',
      'dpop.proofMaxAge: expected a whole number from 1 to 3600, got number 0',
      'dpop.clockSkew: expected a whole number from 0 to 300, got number -1',
      'dpop.requireNonce: expected true or false, got "yes"',
      'dpop.nonceLifetime: expected a whole number from 10 to 86400, got number 5',
    ]);
    expect(validateUserConfig({ dpop: { signingAlgValues: [] } })).toEqual(['dpop.signingAlgValues: expected at least one algorithm such as "ES256"']);
    expect(validateUserConfig({ dpop: { nonces: true } })).toEqual([
      'dpop.nonces: unknown field (known: signingAlgValues, proofMaxAge, clockSkew, requireNonce, nonceLifetime)',
    ]);
    expect(validateUserConfig({ dpop: true })).toEqual(['dpop: expected an object, got boolean true']);
  });

  it('refuses a requireDPoP that is not a boolean', () => {
    expect(validateUserConfig({ clients: [{ ...client, requireDPoP: 'true' }] })).toEqual(['clients[0].requireDPoP: expected true or false, got "true"']);
  });
});
