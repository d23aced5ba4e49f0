/**
 * Start-up validation of a user config: one message per problem, each naming the field path,
 * what is wrong and what is allowed. Nothing is left for the first request to find.
 */
import { describe, expect, it } from 'vitest';
import { BootError } from '../../src/config/boot-error.js';
import { checkConfig } from '../../src/config/load.js';
import { validateUserConfig } from '../../src/config/validate.js';
import { hashSecret } from '../../src/sdk/hash.js';

const secret = { value: hashSecret('validate-secret') };
const valid = {
  apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }],
  apiResources: [{ name: 'api1', scopes: ['api1.read', 'api1.write'] }],
  clients: [
    { clientId: 'a', clientSecrets: [secret], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
    { clientId: 'b', clientSecrets: [secret], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.write'] },
  ],
};
type Raw = Record<string, unknown>;
const withClient = (i: number, patch: Raw): Raw => ({
  ...valid,
  clients: valid.clients.map((c, j) => (j === i ? { ...c, ...patch } : c)),
});

describe('validateUserConfig', () => {
  it('accepts a valid config, and an empty one', () => {
    expect(validateUserConfig(valid)).toEqual([]);
    expect(validateUserConfig({})).toEqual([]);
  });

  it('rejects something that is not an object', () => {
    expect(validateUserConfig(null)).toEqual(['(config): expected an object (export default { ... }), got null']);
    expect(validateUserConfig([])).toEqual(['(config): expected an object (export default { ... }), got an array']);
  });

  it('names an unknown top-level field and lists the known ones', () => {
    const problems = validateUserConfig({ ...valid, colour: 'blue' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^colour: unknown field \(known: issuer, port, host, pluginDirs, .*clients.*\)$/);
  });

  it('names an unknown field inside a client and inside a secret', () => {
    expect(validateUserConfig(withClient(1, { allowedScope: ['api1.read'] }))).toEqual([
      expect.stringMatching(/^clients\[1\]\.allowedScope: unknown field \(did you mean "allowedScopes"\?\) \(known: clientId, /),
    ]);
    expect(validateUserConfig(withClient(0, { clientSecrets: [{ ...secret, expires: '2030-01-01' }] }))).toEqual([
      expect.stringMatching(/^clients\[0\]\.clientSecrets\[0\]\.expires: unknown field \(known: value, type, description, expiration\)$/),
    ]);
  });

  it('names a refresh token reuse interval that is not a whole number of seconds from 0 to 300', () => {
    expect(validateUserConfig(withClient(0, { refreshTokenReuseInterval: 0 }))).toEqual([]);
    expect(validateUserConfig(withClient(0, { refreshTokenReuseInterval: 300 }))).toEqual([]);
    for (const [bad, shown] of [[-1, 'number -1'], [2.5, 'number 2.5'], [301, 'number 301'], ['5', '"5"']] as const) {
      expect(validateUserConfig(withClient(0, { refreshTokenReuseInterval: bad }))).toEqual([
        `clients[0].refreshTokenReuseInterval: expected a whole number from 0 to 300, got ${shown}`,
      ]);
    }
  });

  it('names a duplicate clientId at the second occurrence', () => {
    expect(validateUserConfig(withClient(1, { clientId: 'a' }))).toEqual(['clients[1].clientId: duplicate clientId "a"']);
  });

  it('names a client scope that no apiScope or identity resource defines, listing the known ones', () => {
    expect(validateUserConfig(withClient(1, { allowedScopes: ['api1.write', 'api1.delete'] }))).toEqual([
      'clients[1].allowedScopes[1]: unknown scope "api1.delete" (known: api1.read, api1.write)',
    ]);
  });

  it('names an API resource scope that no apiScope defines', () => {
    expect(validateUserConfig({ ...valid, apiResources: [{ name: 'api1', scopes: ['api1.read', 'api9.read'] }] })).toEqual([
      'apiResources[0].scopes[1]: unknown scope "api9.read" (did you mean "api1.read"?) (define it in apiScopes)',
    ]);
  });

  it.each(['next tuesday', '2027-13-01T00:00:00Z', '2027-01-01T25:00:00Z', '01/02/2027', ''])(
    'names an unparseable secret expiration %j',
    (expiration) => {
      const problems = validateUserConfig(withClient(0, { clientSecrets: [secret, { ...secret, expiration }] }));
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^clients\[0\]\.clientSecrets\[1\]\.expiration: expected an ISO 8601 date-time/);
    },
  );

  it('names an expiration on a day that does not exist (February 30th) instead of rolling it into March', () => {
    const problems = validateUserConfig(withClient(0, { clientSecrets: [{ ...secret, expiration: '2027-02-30T00:00:00Z' }] }));
    expect(problems).toEqual([expect.stringMatching(/^clients\[0\]\.clientSecrets\[0\]\.expiration: expected an ISO 8601 date-time/)]);
  });

  it('names an expiration with a time but no zone, whose meaning would depend on the server clock zone', () => {
    const problems = validateUserConfig(withClient(0, { clientSecrets: [{ ...secret, expiration: '2027-01-31T10:00:00' }] }));
    expect(problems).toEqual([expect.stringMatching(/^clients\[0\]\.clientSecrets\[0\]\.expiration: /)]);
  });

  it.each(['2027-01-31T00:00:00Z', '2027-01-31T00:00:00.250+02:00', '2027-01-31'])('accepts the expiration %j', (expiration) => {
    expect(validateUserConfig(withClient(0, { clientSecrets: [{ ...secret, expiration }] }))).toEqual([]);
  });

  it('names an API resource secret with a bad expiration too', () => {
    expect(validateUserConfig({ ...valid, apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ ...secret, expiration: 'soon' }] }] })).toEqual([
      'apiResources[0].secrets[0].expiration: expected an ISO 8601 date-time such as "2027-01-31T00:00:00Z", got "soon"',
    ]);
  });

  it('names a plain-text user password and says how to hash it', () => {
    const problems = validateUserConfig({ ...valid, users: [{ subjectId: '1', username: 'alice', password: 'alice-password' }] });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^users\[0\]\.password: expected a PHC scrypt hash .*svc hash-password.*never a plain password$/);
    expect(problems[0]).not.toContain('alice-password');
  });

  it('names a confidential client without a secret, and accepts a public one', () => {
    expect(validateUserConfig(withClient(0, { clientSecrets: [] }))).toEqual([
      expect.stringMatching(/^clients\[0\]\.clientSecrets: a confidential client needs at least one secret/),
    ]);
    // Issue 33: a public client is one for a user's grant, not client_credentials (below).
    expect(validateUserConfig(withClient(0, { clientSecrets: [], requireClientSecret: false, allowedGrantTypes: ['password'] }))).toEqual([]);
  });

  it('names a public client with the client_credentials grant: anyone who knows its id would get tokens (issue 33)', () => {
    expect(validateUserConfig(withClient(1, { clientSecrets: [], requireClientSecret: false, allowedGrantTypes: ['password', 'client_credentials'] }))).toEqual([
      'clients[1].allowedGrantTypes[1]: client_credentials needs a confidential client (RFC 6749 §4.4): a public client (requireClientSecret: false) would give tokens to anyone who knows its id; give it a secret or remove the grant',
    ]);
    expect(() => checkConfig(withClient(0, { clientSecrets: [], requireClientSecret: false, tokenEndpointAuthMethods: ['none'] }), '/srv/svc')).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringMatching(/^clients\[0\]\.allowedGrantTypes\[0\]: client_credentials needs a confidential client/) }),
    );
  });

  it('names a missing required list and a wrongly typed value', () => {
    const { allowedGrantTypes: _omitted, ...noGrants } = valid.clients[0]!;
    expect(validateUserConfig({ ...valid, clients: [noGrants, valid.clients[1]] })).toEqual([
      'clients[0].allowedGrantTypes: required, expected an array',
    ]);
    expect(validateUserConfig(withClient(1, { allowedGrantTypes: ['client_credentials', 42] }))).toEqual([
      'clients[1].allowedGrantTypes[1]: expected a non-empty string, got number 42',
    ]);
  });

  it('names a bad port, issuer, signing algorithm and limit with the allowed values', () => {
    expect(validateUserConfig({ port: 70000 })).toEqual(['port: expected a whole number from 0 to 65535, got number 70000']);
    expect(validateUserConfig({ issuer: 'https://id.example.com/?tenant=1' })).toEqual(['issuer: the issuer must not contain a query or fragment']);
    expect(validateUserConfig({ signing: { accessTokenAlgorithm: 'HS256' } })).toEqual([
      expect.stringMatching(/^signing\.accessTokenAlgorithm: unknown value "HS256" \(allowed: ES256, .*RS256.*\)$/),
    ]);
    expect(validateUserConfig({ limits: { bodyBytes: 10 } })).toEqual([expect.stringMatching(/^limits\.bodyBytes: expected a whole number from 1024 to /)]);
  });

  it('takes "auto" or a whole number of signing threads, and names anything else', () => {
    for (const threads of ['auto', 0, 2, 256]) expect(validateUserConfig({ signing: { threads } })).toEqual([]);
    expect(validateUserConfig({ signing: { threads: -1 } })).toEqual(['signing.threads: expected "auto" or a whole number from 0 to 256, got number -1']);
    expect(validateUserConfig({ signing: { threads: 'many' } })).toEqual(['signing.threads: expected "auto" or a whole number from 0 to 256, got "many"']);
    expect(validateUserConfig({ signing: { threads: 1.5 } })).toEqual(['signing.threads: expected "auto" or a whole number from 0 to 256, got number 1.5']);
  });

  it('reports every problem, one message each', () => {
    const raw = {
      ...withClient(1, { clientId: 'a', allowedScopes: ['nope'], clientSecrets: [{ ...secret, expiration: 'never' }] }),
      colour: 'blue',
      users: [{ subjectId: '1', username: 'u', password: 'plain' }],
    };
    const problems = validateUserConfig(raw);
    expect(problems).toHaveLength(5);
    expect(problems.map((p) => p.split(':')[0])).toEqual(
      expect.arrayContaining([
        'colour',
        'clients[1].clientSecrets[0].expiration',
        'clients[1].allowedScopes[0]',
        'clients[1].clientId',
        'users[0].password',
      ]),
    );
  });
});

describe('checkConfig', () => {
  it('throws one BootError CONFIG_INVALID listing every problem', () => {
    const raw = { ...withClient(1, { clientId: 'a' }), colour: 'blue' };
    let thrown: unknown;
    try {
      checkConfig(raw, '/srv/svc');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(BootError);
    const err = thrown as BootError;
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.problems).toEqual([expect.stringMatching(/^colour: unknown field/), 'clients[1].clientId: duplicate clientId "a"']);
    expect(err.message).toBe(`2 problems:\n  ${err.problems.join('\n  ')}`);
  });

  it('uses the problem itself as the message when there is one', () => {
    expect(() => checkConfig({ port: -1 }, '/srv/svc')).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: 'port: expected a whole number from 0 to 65535, got number -1' }),
    );
  });
});
