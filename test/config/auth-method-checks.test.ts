/**
 * `clients[].tokenEndpointAuthMethods` is checked at start-up: the shape by validateUserConfig,
 * the names against the loaded plugins' authentication methods, and each method against the
 * client's secrets (a pinned method the client holds no secret for could never succeed).
 */
import { describe, expect, it } from 'vitest';
import type { BootError } from '../../src/config/boot-error.js';
import type { ClientConfig } from '../../src/config/schema.js';
import { validateUserConfig } from '../../src/config/validate.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { bootErrorFor } from '../support/boot-error.js';
import { firstPartyPlugins } from '../support/server.js';

const client = (patch: Partial<ClientConfig> & Record<string, unknown>): ClientConfig => ({
  clientId: 'app',
  clientSecrets: [{ value: hashSecret('app-secret') }],
  allowedGrantTypes: ['client_credentials'],
  allowedScopes: ['api1.read'],
  ...patch,
});
const base = { apiScopes: [{ name: 'api1.read' }] };

const bootError = (clients: ClientConfig[]): Promise<BootError> =>
  bootErrorFor({ store: 'memory', pluginDirs: [firstPartyPlugins], ...base, clients }, firstPartyPlugins);

describe('tokenEndpointAuthMethods: shape', () => {
  it.each([
    ['a string', 'private_key_jwt', 'clients[0].tokenEndpointAuthMethods: expected an array, got "private_key_jwt"'],
    ['an empty list', [], 'clients[0].tokenEndpointAuthMethods: expected at least one method (leave the field out to allow every method the client has secrets for)'],
    ['a repeated method', ['private_key_jwt', 'private_key_jwt'], 'clients[0].tokenEndpointAuthMethods[1]: "private_key_jwt" is listed twice'],
    ['a non-string', [42], 'clients[0].tokenEndpointAuthMethods[0]: expected a non-empty string, got number 42'],
  ])('rejects %s', (_case, methods, problem) => {
    expect(validateUserConfig({ ...base, clients: [client({ tokenEndpointAuthMethods: methods as never })] })).toEqual([problem]);
  });

  it('rejects none for a confidential client', () => {
    expect(validateUserConfig({ ...base, clients: [client({ tokenEndpointAuthMethods: ['none'] })] })).toEqual([
      'clients[0].tokenEndpointAuthMethods[0]: "none" is for public clients; set requireClientSecret: false or remove it',
    ]);
  });
});

describe('tokenEndpointAuthMethods: against the plugins and the client\'s secrets', () => {
  it('stops start-up on an unknown method, naming the field and the known methods', async () => {
    const err = await bootError([client({ tokenEndpointAuthMethods: ['client_secret_jwt'] })]);
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.problems).toEqual([
      'clients[0].tokenEndpointAuthMethods[0]: unknown authentication method "client_secret_jwt" (known: none, client_secret_basic, client_secret_post, private_key_jwt, self_signed_tls_client_auth, tls_client_auth)',
    ]);
  });

  it('stops start-up on a method the client holds no secret for', async () => {
    const err = await bootError([client({ tokenEndpointAuthMethods: ['private_key_jwt'] })]);
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.problems).toEqual([
      'clients[0].tokenEndpointAuthMethods[0]: the client has no secret private_key_jwt can check (needs a secret of type X509CertificateBase64 or JsonWebKey or FederatedCredential)',
    ]);
  });

  it('stops start-up on a certificate method while no client certificate can reach the service', async () => {
    const err = await bootError([client({ clientSecrets: [{ type: 'X509Name', value: 'CN=app' }], tokenEndpointAuthMethods: ['tls_client_auth'] })]);
    expect(err.problems).toEqual([
      'clients[0].tokenEndpointAuthMethods[0]: tls_client_auth reads the TLS client certificate, and none can reach the service: set tls.requestClientCertificate, or mtls.certificateHeader with trustedProxies',
    ]);
    const served = await bootErrorFor({
      store: 'memory', pluginDirs: [firstPartyPlugins], ...base, trustedProxies: ['10.0.0.1'], mtls: { certificateHeader: 'x-ssl-client-cert' },
      clients: [client({ clientSecrets: [{ type: 'X509Name', value: 'CN=app' }], tokenEndpointAuthMethods: ['tls_client_auth'] }), { clientId: 'bad', allowedGrantTypes: ['nope'], allowedScopes: [] , requireClientSecret: false }],
    }, firstPartyPlugins);
    // Only the other client's problem: with the header from a trusted proxy, certificates can arrive.
    expect(served.problems).toEqual([expect.stringMatching(/^clients\[1\]\.allowedGrantTypes\[0\]: unknown grant type "nope"/)]);
  });
});
