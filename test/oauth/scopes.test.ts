/** parseScope and resolveRequestedScopes: RFC 6749 §3.3 scope syntax and the client's allowance. */
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load.js';
import { InvalidScope } from '../../src/oauth/errors.js';
import { parseScope, resolveRequestedScopes, type ScopeCatalog } from '../../src/oauth/scopes.js';
import { hashSecret } from '../../src/sdk/hash.js';

const config = checkConfig(
  {
    apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }, { name: 'backend.read' }],
    identityResources: [{ name: 'openid', claims: ['sub'] }, { name: 'profile', claims: ['name'] }],
    clients: [
      {
        clientId: 'web',
        clientSecrets: [{ value: hashSecret('s') }],
        allowedGrantTypes: ['client_credentials'],
        allowedScopes: ['openid', 'profile', 'api1.read', 'api1.write'],
        allowOfflineAccess: true,
      },
      {
        clientId: 'm2m',
        clientSecrets: [{ value: hashSecret('s') }],
        allowedGrantTypes: ['client_credentials'],
        allowedScopes: ['api1.read'],
      },
    ],
  },
  '/srv/svc',
);
const [web, m2m] = config.clients as [(typeof config.clients)[0], (typeof config.clients)[0]];
const catalog: ScopeCatalog = {
  apiScopes: new Set(config.apiScopes.map((s) => s.name)),
  identityScopes: new Set(config.identityResources.map((r) => r.name)),
};

function scopeError(fn: () => unknown): InvalidScope {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidScope);
    expect((err as InvalidScope).code).toBe('invalid_scope');
    return err as InvalidScope;
  }
  throw new Error('expected invalid_scope');
}

describe('parseScope', () => {
  it('splits on spaces, ignoring repeated and surrounding spaces', () => {
    expect(parseScope('api1.read api1.write')).toEqual(['api1.read', 'api1.write']);
    expect(parseScope('  api1.read   api1.write ')).toEqual(['api1.read', 'api1.write']);
  });

  it('collapses duplicates, keeping the first order', () => {
    expect(parseScope('b a b a')).toEqual(['b', 'a']);
  });

  it('accepts every character RFC 6749 allows in a scope token', () => {
    expect(parseScope('urn:x:y/z!#$%&\'()*+,-./09:;<=>?@AZ[]^_`az{|}~')).toEqual(['urn:x:y/z!#$%&\'()*+,-./09:;<=>?@AZ[]^_`az{|}~']);
  });

  it.each(['api1."read"', 'api1\\read', 'api1.read\tapi1.write', 'é', 'api1.read\napi1.write'])(
    'rejects a malformed scope token %j with invalid_scope',
    (scope) => {
      expect(scopeError(() => parseScope(scope)).description).toBe('The scope parameter is malformed.');
    },
  );

  it('gives an empty list for only spaces', () => {
    expect(parseScope('   ')).toEqual([]);
  });
});

describe('resolveRequestedScopes', () => {
  it("grants the client's allowed API scopes when none are requested (no identity scopes, no offline_access)", () => {
    expect(resolveRequestedScopes(web, undefined, catalog)).toEqual(['api1.read', 'api1.write']);
    expect(resolveRequestedScopes(m2m, undefined, catalog)).toEqual(['api1.read']);
  });

  it('grants exactly a requested subset', () => {
    expect(resolveRequestedScopes(web, 'api1.write openid', catalog)).toEqual(['api1.write', 'openid']);
  });

  it('rejects a defined scope the client is not allowed, naming it in the log only', () => {
    const error = scopeError(() => resolveRequestedScopes(m2m, 'api1.read backend.read', catalog));
    expect(error.description).toBe('The client is not allowed a requested scope.');
    expect(error.logDetail).toContain('"backend.read"');
  });

  it('rejects an undefined scope, naming it in the log only', () => {
    const error = scopeError(() => resolveRequestedScopes(web, 'api1.delete', catalog));
    expect(error.description).toBe('The client is not allowed a requested scope.');
    expect(error.logDetail).toContain('"api1.delete"');
  });

  it('allows offline_access only to a client with allowOfflineAccess', () => {
    expect(resolveRequestedScopes(web, 'api1.read offline_access', catalog)).toEqual(['api1.read', 'offline_access']);
    expect(scopeError(() => resolveRequestedScopes(m2m, 'offline_access', catalog)).logDetail).toContain('"offline_access"');
  });

  it('rejects a scope parameter of only spaces', () => {
    expect(scopeError(() => resolveRequestedScopes(web, '  ', catalog)).description).toBe('The scope parameter is empty.');
  });
});
