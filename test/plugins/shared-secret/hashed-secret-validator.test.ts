/**
 * The hashed-secret validator, called with plain values: stored values are base64 SHA-256 or
 * SHA-512 digests (IdentityServer's encoding), decoded once at start-up; a stored value that is
 * not such a hash stops start-up, naming its field.
 */
import { describe, expect, it } from 'vitest';
import { createHashedSecretValidator } from '../../../plugins/shared-secret/hashed-secret-validator.js';
import { checkConfig } from '../../../src/config/load.js';
import type { ResolvedConfig, Secret, UserConfig } from '../../../src/config/schema.js';
import { hashSecret } from '../../../src/sdk/hash.js';
import type { SecretValidationContext } from '../../../src/sdk/contracts.js';

function configWith(user: UserConfig): ResolvedConfig {
  return checkConfig({ apiScopes: [{ name: 'api1.read' }], ...user }, '/srv/svc');
}

const config = configWith({
  apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] }],
  clients: [
    {
      clientId: 'rotating',
      clientSecrets: [
        { value: hashSecret('old-one'), description: 'sha-256' },
        { value: hashSecret('new-one', 'sha512'), description: 'sha-512' },
      ],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
    },
  ],
});
const client = config.clients[0]!;
const validator = createHashedSecretValidator({ config });

function context(credential: string, secrets: readonly Secret[] = client.clientSecrets): SecretValidationContext {
  return {
    parsed: { id: client.clientId, credential, type: 'SharedSecret' },
    secrets,
    holder: { kind: 'client', client },
    endpoint: 'token',
  };
}

describe('hashed-secret validator', () => {
  it('judges SharedSecret credentials against SharedSecret definitions', () => {
    expect(validator.parsedSecretTypes).toEqual(['SharedSecret']);
    expect(validator.secretTypes).toEqual(['SharedSecret']);
  });

  it('accepts a secret matching a stored SHA-256 hash', async () => {
    expect(await validator.validate(context('old-one'))).toEqual({ success: true });
  });

  it('accepts a secret matching a stored SHA-512 hash', async () => {
    expect(await validator.validate(context('new-one'))).toEqual({ success: true });
  });

  it('rejects anything else, with a log-only reason that holds no secret', async () => {
    const result = await validator.validate(context('new-onf'));
    expect(result).toEqual({ success: false, reason: 'secret does not match any of 2 shared secret(s)' });
  });

  it('rejects the stored hash itself presented as the secret', async () => {
    expect((await validator.validate(context(hashSecret('old-one')))).success).toBe(false);
  });

  it('is exact: case, whitespace and Unicode normalization all matter', async () => {
    for (const near of ['Old-one', 'old-one ', ' old-one', 'old-one\n', '']) {
      expect((await validator.validate(context(near))).success, JSON.stringify(near)).toBe(false);
    }
  });

  it('checks only the secrets it is given (the host has already dropped expired ones)', async () => {
    expect((await validator.validate(context('old-one', [client.clientSecrets[1]!]))).success).toBe(false);
    expect((await validator.validate(context('old-one', []))).success).toBe(false);
  });

  it('validates API resource secrets too', async () => {
    const api = config.apiResources[0]!;
    const result = await validator.validate({
      parsed: { id: 'api1', credential: 'api1-secret', type: 'SharedSecret' },
      secrets: api.secrets,
      holder: { kind: 'apiResource', apiResource: api },
      endpoint: 'introspection',
    });
    expect(result).toEqual({ success: true });
  });
});

describe('hashed-secret validator factory', () => {
  const clientWith = (values: string[]): UserConfig => ({
    clients: [
      { clientId: 'fine', clientSecrets: [{ value: hashSecret('fine') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
      {
        clientId: 'broken',
        clientSecrets: values.map((value) => ({ value })),
        allowedGrantTypes: ['client_credentials'],
        allowedScopes: ['api1.read'],
      },
    ],
  });

  it.each([
    ['a plain secret', 'my-plain-secret'],
    ['a plain secret that happens to be base64', 'secret'],
    ['a hex SHA-256 digest', '2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b'],
    ['base64 of 16 bytes', Buffer.alloc(16, 1).toString('base64')],
    ['base64url instead of base64', hashSecret('x').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') + '-_'],
  ])('throws for %s, naming the field and the fix', (_case, value) => {
    expect(() => createHashedSecretValidator({ config: configWith(clientWith([hashSecret('ok'), value])) })).toThrow(
      'clients[1].clientSecrets[1].value: not a base64 SHA-256 or SHA-512 hash (store the output of `svc hash-secret <secret>`, never the secret itself)',
    );
  });

  it('names a bad API resource secret by its field', () => {
    const bad = configWith({ apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: 'api1-secret' }] }] });
    expect(() => createHashedSecretValidator({ config: bad })).toThrow(/^apiResources\[0\]\.secrets\[0\]\.value: not a base64 SHA-256 or SHA-512 hash/);
  });

  it('never echoes the bad stored value (it may be a plain secret)', () => {
    let message = '';
    try {
      createHashedSecretValidator({ config: configWith(clientWith(['my-plain-secret'])) });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^clients\[1\]\.clientSecrets\[0\]\.value: /);
    expect(message).not.toContain('my-plain-secret');
  });

  it('leaves secrets of other types to other validators', () => {
    const other = configWith({
      clients: [{ clientId: 'jwt', clientSecrets: [{ value: 'MIIB...not-a-hash', type: 'X509CertificateBase64' }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],
    });
    expect(() => createHashedSecretValidator({ config: other })).not.toThrow();
  });
});
