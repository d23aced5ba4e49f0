// node-oidc-provider v9 set up for the same scenarios as the service, so both are measured in
// one run on one machine: the same clients, secrets, scopes and paths, its default in-memory
// adapter, and JWT access tokens (via a default resource indicator) for the `m2m` client only.
// Usage: node test/bench/oidc-provider.mjs <settings.json>; prints "listening <url>" when ready.
// The settings file holds port, accessTokenAlgorithm, secrets and the private_key_jwt client's
// public JWK (see fixture.ts).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const settings = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const issuer = `http://127.0.0.1:${settings.port}`;
const alg = settings.accessTokenAlgorithm;
const jwtResource = 'urn:bench:api1';

const signingKey = async (algorithm) => {
  const { privateKey } = await generateKeyPair(algorithm, { extractable: true });
  return { ...(await exportJWK(privateKey)), alg: algorithm, use: 'sig', kid: algorithm };
};

const confidential = { grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'api1.read' };
const provider = new Provider(issuer, {
  clients: [
    { ...confidential, client_id: 'm2m', client_secret: settings.secrets.m2m },
    { ...confidential, client_id: 'm2m-reference', client_secret: settings.secrets.reference },
    {
      ...confidential,
      client_id: 'pkj',
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: settings.assertionJwk.alg,
      jwks: { keys: [settings.assertionJwk] },
    },
    // The API calls introspection as a client of its own.
    { client_id: 'api1', client_secret: settings.secrets.api1, grant_types: [], redirect_uris: [], response_types: [] },
  ],
  jwks: { keys: [await signingKey('ES256'), await signingKey('RS256')] },
  scopes: ['api1.read'],
  cookies: { keys: [settings.secrets.m2m] },
  routes: { token: '/connect/token', introspection: '/connect/introspect', jwks: '/.well-known/openid-configuration/jwks' },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (_ctx, client) => (client.clientId === 'm2m' ? jwtResource : undefined),
      getResourceServerInfo: () => ({ scope: 'api1.read', audience: 'api1', accessTokenFormat: 'jwt', jwt: { sign: { alg } } }),
    },
  },
});

const server = createServer(provider.callback());
server.keepAliveTimeout = 5_000;
server.listen(settings.port, '127.0.0.1', () => {
  process.stdout.write(`listening ${issuer}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
