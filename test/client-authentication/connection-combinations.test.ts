/**
 * The connection's certificate (mutual-tls plugin, RFC 8705 §2) against the request's methods
 * (shared-secret plugin), through the composed steps with plain values: a certificate
 * authenticates a client holding a certificate secret, is no credential for one holding shared
 * secrets only, and gives way to credentials in the request (it then only binds tokens, §4).
 * The certificates are made for this test and valid around now, so the clock is the real one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import mutualTls from '../../plugins/mutual-tls/index.js';
import sharedSecret from '../../plugins/shared-secret/index.js';
import { createClientAuthenticator } from '../../src/client-authentication/client-authenticator.js';
import type { AuthenticationSource, ClientAuthenticator } from '../../src/client-authentication/types.js';
import { OAuthError } from '../../src/oauth/errors.js';
import type { ClientCertificate, Client, Secret } from '../../src/sdk/index.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { makePki, partnerSubject } from '../support/certificates.js';
import { makeClient, makeDeps } from '../plugins/private-key-jwt/helpers.js';
import { presented, systemClock } from '../plugins/mutual-tls/helpers.js';

const shared: Secret = { type: 'SharedSecret', value: hashSecret('s3cret'), description: undefined, expiresAt: undefined };
const name: Secret = { type: 'X509Name', value: partnerSubject, description: undefined, expiresAt: undefined };
const basicHeader = (id: string) => `Basic ${Buffer.from(`${id}:s3cret`).toString('base64')}`;

let certificate: ClientCertificate;
let auth: ClientAuthenticator;
const clients: Client[] = [makeClient('holds-certificate', [name]), makeClient('holds-shared', [shared]), makeClient('holds-both', [shared, name])];

beforeAll(async () => {
  const pki = await makePki();
  certificate = presented(pki.partner, [pki.clientCa]);
  const deps = { ...makeDeps({ clients, now: systemClock.now }), options: {}, pluginOptions: {} };
  const plugins = [sharedSecret, mutualTls];
  auth = createClientAuthenticator({
    clients: new Map(clients.map((c) => [c.clientId, c])),
    apiResources: new Map(),
    secretParsers: await Promise.all(plugins.flatMap((p) => (p.secretParsers ?? []).map((f) => f(deps)))),
    secretValidators: await Promise.all(plugins.flatMap((p) => (p.secretValidators ?? []).map((f) => f(deps)))),
    clock: systemClock,
  });
});

const at = (clientId: string, options: { withCertificate?: boolean; basic?: boolean } = {}): AuthenticationSource => ({
  params: new Map(options.basic ? [] : [['client_id', clientId]]),
  authorization: options.basic ? basicHeader(clientId) : undefined,
  endpoint: 'token',
  remoteAddress: '10.0.0.7',
  ...(options.withCertificate ? { clientCertificate: certificate } : {}),
});

async function outcome(source: AuthenticationSource) {
  return auth.authenticateClient(source).then((r) => r, (e: unknown) => e as OAuthError);
}

describe('the connection certificate against the request methods', () => {
  it('authenticates a client holding a certificate secret with tls_client_auth', async () => {
    expect(await outcome(at('holds-certificate', { withCertificate: true }))).toMatchObject({ client: { clientId: 'holds-certificate' }, method: 'tls_client_auth', fromConnection: true });
  });

  it('is no credential for a client holding shared secrets only', async () => {
    const err = await outcome(at('holds-shared', { withCertificate: true }));
    expect(err).toBeInstanceOf(OAuthError);
    expect((err as OAuthError).logDetail).toBe('no credentials for client "holds-shared"');
  });

  it('gives way to a Basic header: the request authenticates, the certificate only binds tokens', async () => {
    const result = await outcome(at('holds-both', { withCertificate: true, basic: true }));
    expect(result).toMatchObject({ client: { clientId: 'holds-both' }, method: 'client_secret_basic' });
    expect(result).not.toHaveProperty('fromConnection');
  });

  it('does not let a shared secret stand in for a certificate secret', async () => {
    const err = await outcome(at('holds-certificate', { basic: true }));
    expect((err as OAuthError).logDetail).toBe('client_secret_basic for "holds-certificate": no secret of a fitting type');
  });
});
