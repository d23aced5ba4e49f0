/**
 * Who owns which field of a registered client (issue 33): a registrant's PUT (RFC 7592 §2.2)
 * replaces its own metadata only, and takes back only the requirements it asked for itself.
 */
import { describe, expect, it } from 'vitest';
import { operatorUpdate, registeredDefinition } from '../../../src/clients/registration/registrant-fields.js';

const requested = { clientName: 'Web', allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://app.example.com/cb'] };

describe('registeredDefinition', () => {
  it('marks a new client registered, and a requirement it asked for as its own', () => {
    expect(registeredDefinition({ ...requested, requireDPoP: true })).toEqual({
      ...requested, requireDPoP: true, properties: { registered: 'true', 'registration.dpop_bound_access_tokens': 'true' },
    });
  });

  it('keeps the operator\'s fields and replaces the registrant\'s, whose absence means the default', () => {
    const current = {
      ...requested, allowOfflineAccess: true, requireConsent: true, accessTokenLifetime: 600, allowedCorsOrigins: ['https://app.example.com'],
      properties: { registered: 'true', tier: 'gold' },
    };
    expect(registeredDefinition({ allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://app.example.com/2'] }, current)).toEqual({
      allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://app.example.com/2'],
      requireConsent: true, accessTokenLifetime: 600, allowedCorsOrigins: ['https://app.example.com'], properties: { registered: 'true', tier: 'gold' },
    });
  });

  it('a registrant drops its own DPoP requirement, never the operator\'s', () => {
    const own = registeredDefinition({ ...requested, requireDPoP: true });
    expect(registeredDefinition(requested, own)).not.toHaveProperty('requireDPoP');
    const imposed = operatorUpdate({ ...own, requireDPoP: true }, { requireDPoP: true });
    expect(imposed.properties).toEqual({ registered: 'true' });
    expect(registeredDefinition(requested, imposed)).toMatchObject({ requireDPoP: true, properties: { registered: 'true' } });
    expect(registeredDefinition(requested, { ...requested, requireCertificateBoundTokens: true })).toMatchObject({ requireCertificateBoundTokens: true });
  });
});
