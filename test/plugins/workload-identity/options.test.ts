/** The plugin's options and secrets: a bad one stops start-up naming its field. */
import { describe, expect, it } from 'vitest';
import { OptionsError } from 'svc/sdk';
import { readOptions } from '../../../plugins/workload-identity/options.js';
import { createFederatedValidator } from '../../../plugins/workload-identity/token-validator.js';
import { parseFederatedCredential } from '../../../plugins/workload-identity/federated-credential.js';
import { matchesPattern } from '../../../plugins/workload-identity/claim-rules.js';
import { parseJwks } from '../../../plugins/workload-identity/jwks.js';

const github = { issuer: 'https://token.actions.githubusercontent.com', audience: 'https://svc.example' };

function optionsError(raw: Record<string, unknown>): { field: string; message: string } {
  try {
    readOptions(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(OptionsError);
    return { field: (error as OptionsError).field, message: (error as Error).message };
  }
  throw new Error('readOptions did not throw');
}

describe('options', () => {
  it('default to no issuer, and read one with discovery by default', () => {
    expect(readOptions({}).issuers).toEqual([]);
    const [issuer] = readOptions({ issuers: [github] }).issuers;
    expect(issuer).toMatchObject({ audience: ['https://svc.example'], algorithms: ['RS256', 'ES256'], maxLifetime: 3600, singleUse: true, requireJti: false });
    expect(issuer!.keys).toEqual({ kind: 'discovery', url: new URL('https://token.actions.githubusercontent.com/.well-known/openid-configuration') });
  });

  it.each([
    [{ issuers: [{ ...github, audience: undefined }] }, 'issuers[0].audience'],
    [{ issuers: [{ ...github, audiences: ['x'] }] }, 'issuers[0].audiences'],
    [{ issuers: [{ ...github, algorithms: ['HS256'] }] }, 'issuers[0].algorithms'],
    [{ issuers: [{ ...github, jwksUri: 'http://keys.example/jwks' }] }, 'issuers[0].jwksUri'],
    [{ issuers: [{ ...github, issuer: 'https://127.0.0.1:8443/k8s' }] }, 'issuers[0].issuer'],
    [{ issuers: [github, github] }, 'issuers[1].issuer'],
    [{ issuers: [{ ...github, jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'a', y: 'b', d: 'c' }] } }] }, 'issuers[0].jwks'],
    [{ issuers: [{ ...github, claims: { repository_owner: 42 } }] }, 'issuers[0].claims'],
    [{ issuers: [{ ...github, maxLifetime: 0 }] }, 'issuers[0].maxLifetime'],
    [{ fetchTimeout: -1 }, 'fetchTimeout'],
    [{ issuer: github }, 'issuer'],
  ])('refuse %j naming the field', (raw, field) => {
    expect(optionsError(raw).field).toBe(field);
  });

  it('allow a loopback issuer, over http too, only with allowLoopback', () => {
    expect(optionsError({ issuers: [{ ...github, issuer: 'https://localhost:8443/k8s' }] }).message).toContain('allowed only with allowLoopback: true');
    expect(readOptions({ allowLoopback: true, issuers: [{ ...github, issuer: 'http://127.0.0.1:8443/k8s' }] }).issuers).toHaveLength(1);
    expect(optionsError({ allowLoopback: true, issuers: [{ ...github, issuer: 'http://keys.example' }] }).field).toBe('issuers[0].issuer');
  });
});

describe('FederatedCredential secrets', () => {
  const deps = (value: string) => ({
    config: { issuer: 'https://svc.example', clients: [{ clientId: 'ci', clientSecrets: [{ type: 'FederatedCredential', value }] }], apiResources: [], apiScopes: [], identityResources: [] },
    clock: { now: () => Date.now() },
    store: {} as never,
    logger: { debug() {}, info() {}, warn() {}, error() {}, child() { return this; } },
    options: readOptions({ issuers: [github] }),
  }) as unknown as Parameters<typeof createFederatedValidator>[0];

  it('stop start-up naming the client and the problem', () => {
    expect(() => createFederatedValidator(deps('{"issuer":"https://token.actions.githubusercontent.com"}'))).toThrow(
      'plugin workload-identity: clients[0] ("ci").clientSecrets[0].value: give "subject" (exact) or "subjectPattern", one of them',
    );
    expect(() => createFederatedValidator(deps('{"issuer":"https://gitlab.example","subject":"x"}'))).toThrow(
      'clients[0] ("ci").clientSecrets[0].value: issuer "https://gitlab.example" is not in plugins["workload-identity"].issuers',
    );
    expect(() => createFederatedValidator(deps('repo:acme/app'))).toThrow('the value is not JSON text');
  });

  it('match the subject exactly unless a pattern is written', () => {
    const exact = parseFederatedCredential(JSON.stringify({ issuer: 'i', subject: 'repo:acme/app:*' }));
    expect(exact.subject).toEqual({ kind: 'exact', value: 'repo:acme/app:*' });
    expect(() => parseFederatedCredential(JSON.stringify({ issuer: 'i', subjectPattern: '**' }))).toThrow('must not match every subject');
  });
});

describe('patterns', () => {
  it.each([
    ['repo:acme/app:*', 'repo:acme/app:ref:refs/heads/main', true],
    ['repo:acme/app:*', 'repo:acme/app2:ref:refs/heads/main', false],
    ['refs/heads/release-*', 'refs/heads/release-2', true],
    ['*:payments:*', 'system:serviceaccount:payments:api', true],
    ['a*a*a*a*b', 'a'.repeat(10_000), false],
  ])('%s against %s: %s', (pattern, text, expected) => {
    expect(matchesPattern(pattern, text)).toBe(expected);
  });
});

describe('key sets', () => {
  it('keep signature keys (a SPIFFE bundle marks them jwt-svid), skip encryption and X.509-SVID keys', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const keys = parseJwks({ keys: [{ ...jwk, kid: 'a', use: 'jwt-svid' }, { ...jwk, kid: 'b', use: 'x509-svid' }, { ...jwk, kid: 'c', use: 'enc' }, { kty: 'oct', k: 'c2VjcmV0' }] }, ['ES256']);
    expect(keys.map((k) => k.kid)).toEqual(['a']);
  });
});
