/**
 * Start-up checks of resource indicators (RFC 8707): an API's `uri` is an absolute URI without a
 * fragment, and names one API; the client's `requireResourceIndicator` and the deployment's
 * `resourceIndicators.acceptNames` have their defaults.
 */
import { describe, expect, it } from 'vitest';
import { validateUserConfig } from '../../src/config/validate.js';
import { resolveConfig } from '../../src/config/resolve.js';

const apiScopes = [{ name: 'billing.read' }, { name: 'reports.read' }];
const client = { clientId: 'm2m', requireClientSecret: false, allowedGrantTypes: ['password'], allowedScopes: [] as string[] };

describe('resource indicator config', () => {
  it('fills in the defaults and keeps a uri', () => {
    const resolved = resolveConfig({
      apiScopes, apiResources: [{ name: 'billing', uri: 'https://billing.example.com/', scopes: ['billing.read'] }], clients: [client],
    }, '/');
    expect(resolved.resourceIndicators).toEqual({ acceptNames: false });
    expect(resolved.clients[0]!.requireResourceIndicator).toBe(false);
    expect(resolved.apiResources[0]!.uri).toBe('https://billing.example.com/');
  });

  it('refuses a relative uri, one with a fragment, and one that is no URI, naming each field', () => {
    expect(validateUserConfig({
      apiScopes,
      apiResources: [
        { name: 'billing', uri: '/billing', scopes: ['billing.read'] },
        { name: 'reports', uri: 'https://reports.example.com/#v1', scopes: ['reports.read'] },
        { name: 'other', uri: 'not a uri', scopes: ['reports.read'] },
      ],
    })).toEqual([
      'apiResources[0].uri: expected an absolute URI without a fragment such as "https://billing.example.com/" (RFC 8707 §2), got "/billing"',
      'apiResources[1].uri: expected an absolute URI without a fragment such as "https://billing.example.com/" (RFC 8707 §2), got "https://reports.example.com/#v1"',
      'apiResources[2].uri: expected an absolute URI without a fragment such as "https://billing.example.com/" (RFC 8707 §2), got "not a uri"',
    ]);
  });

  it('refuses a uri two APIs share, and a uri that is another API\'s name', () => {
    expect(validateUserConfig({
      apiScopes,
      apiResources: [
        { name: 'billing', uri: 'https://api.example.com/', scopes: ['billing.read'] },
        { name: 'reports', uri: 'https://api.example.com/', scopes: ['reports.read'] },
        { name: 'urn:example:old', scopes: ['reports.read'] },
        { name: 'new', uri: 'urn:example:old', scopes: ['reports.read'] },
      ],
    })).toEqual([
      'apiResources[1].uri: duplicate uri "https://api.example.com/"',
      'apiResources[3].uri: "urn:example:old" is the name of another API resource; a token\'s aud would name both',
    ]);
  });

  it('refuses settings of the wrong type', () => {
    expect(validateUserConfig({ resourceIndicators: { acceptNames: 'yes' }, clients: [{ ...client, requireResourceIndicator: 1 }] })).toEqual([
      'clients[0].requireResourceIndicator: expected true or false, got number 1',
      'resourceIndicators.acceptNames: expected true or false, got "yes"',
    ]);
  });
});
