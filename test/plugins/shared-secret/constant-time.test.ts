/**
 * The comparison path of the hashed-secret validator: the presented secret is hashed with the
 * stored hash's algorithm (SHA-256 for 32-byte values, SHA-512 for 64-byte ones) and compared
 * with crypto.timingSafeEqual, never with === on strings.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const spies = vi.hoisted(() => ({ hash: vi.fn(), timingSafeEqual: vi.fn() }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  spies.hash.mockImplementation(actual.hash);
  spies.timingSafeEqual.mockImplementation(actual.timingSafeEqual);
  return { ...actual, default: actual, hash: spies.hash, timingSafeEqual: spies.timingSafeEqual };
});

const { createHashedSecretValidator } = await import('../../../plugins/shared-secret/hashed-secret-validator.js');
const { checkConfig } = await import('../../../src/config/load.js');
const { hashSecret } = await import('../../../src/sdk/hash.js');

const sha256 = { value: hashSecret('two-five-six') };
const sha512 = { value: hashSecret('five-twelve', 'sha512') };
const config = checkConfig(
  {
    apiScopes: [{ name: 'a' }],
    clients: [{ clientId: 'c', clientSecrets: [sha256, sha512], allowedGrantTypes: ['client_credentials'], allowedScopes: ['a'] }],
  },
  '/srv/svc',
);
const client = config.clients[0]!;
const validator = createHashedSecretValidator({ config });
const validate = (credential: string, secrets = client.clientSecrets) =>
  validator.validate({ parsed: { id: 'c', credential, type: 'SharedSecret' }, secrets, holder: { kind: 'client', client }, endpoint: 'token' });

// Secrets the validator did not see at start-up: decoded on the fly (hashed here, before the spies are cleared).
const many = [client.clientSecrets[0]!, { ...client.clientSecrets[0]!, value: hashSecret('another') }, { ...client.clientSecrets[0]!, value: hashSecret('third') }];

beforeEach(() => {
  spies.hash.mockClear();
  spies.timingSafeEqual.mockClear();
});

describe('constant-time comparison', () => {
  it('hashes with SHA-256 and compares 32 bytes in constant time for a SHA-256 secret', async () => {
    expect(await validate('two-five-six', [client.clientSecrets[0]!])).toEqual({ success: true });
    expect(spies.hash.mock.calls.map((c) => c[0])).toEqual(['sha256']);
    expect(spies.timingSafeEqual).toHaveBeenCalledTimes(1);
    const [a, b] = spies.timingSafeEqual.mock.calls[0] as [Buffer, Buffer];
    expect([a.length, b.length]).toEqual([32, 32]);
  });

  it('hashes with SHA-512 and compares 64 bytes in constant time for a SHA-512 secret', async () => {
    expect(await validate('five-twelve', [client.clientSecrets[1]!])).toEqual({ success: true });
    expect(spies.hash.mock.calls.map((c) => c[0])).toEqual(['sha512']);
    const [a, b] = spies.timingSafeEqual.mock.calls[0] as [Buffer, Buffer];
    expect([a.length, b.length]).toEqual([64, 64]);
  });

  it('compares against every stored secret, hashing once per algorithm', async () => {
    expect((await validate('neither')).success).toBe(false);
    expect(spies.hash.mock.calls.map((c) => c[0])).toEqual(['sha256', 'sha512']);
    expect(spies.timingSafeEqual).toHaveBeenCalledTimes(2);
  });

  it('reuses the SHA-256 hash of the presented secret across several SHA-256 secrets', async () => {
    expect((await validate('third', many)).success).toBe(true);
    expect(spies.hash).toHaveBeenCalledTimes(1);
    expect(spies.timingSafeEqual).toHaveBeenCalledTimes(3);
  });
});
