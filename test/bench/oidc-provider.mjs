// node-oidc-provider v9 set up for the same scenarios as the service, so both are measured in
// one run on one machine: the same clients, secrets, scopes and paths, its in-memory adapter,
// and JWT access tokens (via a default resource indicator) for the `m2m` and `webapp` clients.
// Usage: node test/bench/oidc-provider.mjs <settings.json>; prints "listening <url>" when ready.
// The settings file holds port, accessTokenAlgorithm, secrets, the private_key_jwt client's
// public JWK and the web app's redirect URI and user (see fixture.ts).
//
// Bench only, never in the product: POST /bench/codes mints authorization codes in its store
// (see mintCode), so the code and refresh rows measure the redemption alone, as ours do.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
// Its own in-memory adapter and store, reached by path: the package has no "exports" map.
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';
import LRU from 'oidc-provider/lib/helpers/lru.js';

const settings = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const issuer = `http://127.0.0.1:${settings.port}`;
const alg = settings.accessTokenAlgorithm;
const jwtResource = 'urn:bench:api1';
// The API the resource indicator row names (fixture.ts `reportsResource`): a JWT for it alone.
const reportsResource = 'urn:bench:reports';
const webScope = 'openid api1.read offline_access';
const webApps = ['webapp', 'webapp-es256'];
const fapiScope = 'openid api1.read';
const clockTolerance = 15; // its default

const signingKey = async (algorithm) => {
  const { privateKey } = await generateKeyPair(algorithm, { extractable: true });
  return { ...(await exportJWK(privateKey)), alg: algorithm, use: 'sig', kid: algorithm };
};

// The default adapter keeps at most 1,000-2,000 entries (two generations of 1,000): a code pool
// of thousands, or 512 refresh-token families each with its grant, would be evicted before use.
// The user-flow models get the same adapter over a larger store; every other model keeps the
// default one, so the client_credentials, private_key_jwt and DPoP rows run as before.
const userFlowModels = new Set(['Grant', 'AuthorizationCode', 'RefreshToken', 'AccessToken', 'Session', 'Interaction']);
const defaultStore = new LRU({ maxSize: 1000 });
const userFlowStore = new LRU({ maxSize: 600_000 });
const adapter = (model) => new MemoryAdapter(model, userFlowModels.has(model) ? userFlowStore : defaultStore, clockTolerance);

const confidential = { grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'api1.read' };
const webApp = (clientId, idTokenAlg) => ({
  client_id: clientId,
  client_secret: settings.secrets.webapp,
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  redirect_uris: [settings.webapp.redirectUri],
  scope: webScope,
  id_token_signed_response_alg: idTokenAlg,
});
const provider = new Provider(issuer, {
  adapter,
  clockTolerance,
  clients: [
    { ...confidential, client_id: 'm2m', client_secret: settings.secrets.m2m, scope: 'api1.read reports.read' },
    { ...confidential, client_id: 'm2m-reference', client_secret: settings.secrets.reference },
    {
      ...confidential,
      client_id: 'pkj',
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: settings.assertionJwk.alg,
      jwks: { keys: [settings.assertionJwk] },
    },
    // The API calls introspection as a client of its own.
    // RS256-signed introspection answers when it asks for them (RFC 9701), as ours.
    { client_id: 'api1', client_secret: settings.secrets.api1, grant_types: [], redirect_uris: [], response_types: [], introspection_signed_response_alg: 'RS256' },
    // A web app signing users in, as ours: client_secret_basic, codes with PKCE, rotating
    // refresh tokens. ID tokens RS256, as our service signs them by default, and the same web app
    // with ES256 ID tokens, as ours (fixture.ts).
    webApp('webapp', 'RS256'),
    webApp('webapp-es256', 'ES256'),
    // The FAPI 2.0 client of the fapi2-code row (issue 37), as ours: private_key_jwt (ES256),
    // ES256 ID tokens, DPoP-bound codes and tokens, no refresh tokens.
    {
      client_id: 'fapi-bank',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: [settings.webapp.redirectUri],
      scope: fapiScope,
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: [settings.fapiJwk] },
      id_token_signed_response_alg: 'ES256',
      dpop_bound_access_tokens: true,
    },
  ],
  jwks: { keys: [await signingKey('ES256'), await signingKey('RS256')] },
  scopes: ['openid', 'offline_access', 'api1.read', 'reports.read'],
  cookies: { keys: [settings.secrets.m2m] },
  // The user of the web app; the ID token carries only `sub`, as ours (identity resource openid).
  findAccount: (_ctx, sub) => (sub === settings.webapp.accountId ? { accountId: sub, claims: () => ({ sub }) } : undefined),
  // As ours: every rotation (our refresh tokens are one-time); codes live as fixture.ts says, ID tokens 5 minutes.
  rotateRefreshToken: true,
  ttl: { AuthorizationCode: settings.webapp.codeLifetimeSeconds, IdToken: 300 },
  routes: { token: '/connect/token', introspection: '/connect/introspect', jwks: '/.well-known/openid-configuration/jwks' },
  features: {
    devInteractions: { enabled: false },
    // FAPI 2.0 for its FAPI client only, as ours (`fapi2: 'security'` on that client).
    fapi: { enabled: true, profile: (_ctx, client) => (client?.clientId === 'fapi-bank' ? '2.0' : undefined) },
    dPoP: { enabled: true },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    jwtIntrospection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (_ctx, client) => (client.clientId === 'm2m' || webApps.includes(client.clientId) || client.clientId === 'fapi-bank' ? jwtResource : undefined),
      // With `openid` granted it would otherwise issue an opaque token for its userinfo endpoint
      // unless the token request names the resource; ours issues the API's JWT either way.
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => (resource === reportsResource
        ? { scope: 'reports.read', audience: reportsResource, accessTokenFormat: 'jwt', jwt: { sign: { alg } } }
        : { scope: 'api1.read', audience: 'api1', accessTokenFormat: 'jwt', jwt: { sign: { alg } } }),
    },
  },
});

const webClients = new Map(await Promise.all([...webApps, 'fapi-bank'].map(async (id) => [id, await provider.Client.find(id)])));

/**
 * What its authorization endpoint leaves in the store for a signed-in user who consented (see
 * its lib/helpers/process_response_types.js, codeHandler): a grant for the web app with the
 * OIDC scopes and the API's resource scope, and a code bound to it, the redirect URI and the
 * PKCE challenge. One grant per code, as many users signing in once each: codes of one grant
 * would make its adapter's per-grant index (rewritten on every save) grow with the pool.
 * No session: with offline_access the code does not expire with one (expiresWithSession), so
 * the redemption never reads it.
 */
async function mintCode(webapp, codeChallenge, dpopJkt) {
  const { accountId, redirectUri } = settings.webapp;
  const scope = webapp.clientId === 'fapi-bank' ? fapiScope : webScope;
  const grant = new provider.Grant({ accountId, clientId: webapp.clientId });
  grant.addOIDCScope(scope);
  grant.addResourceScope(jwtResource, 'api1.read');
  const grantId = await grant.save();
  const code = new provider.AuthorizationCode({
    accountId,
    authTime: Math.floor(Date.now() / 1000),
    client: webapp,
    codeChallenge,
    codeChallengeMethod: 'S256',
    grantId,
    redirectUri,
    resource: jwtResource,
    scope,
    // The FAPI row's codes are bound to the DPoP key, as PAR with a proof binds ours (RFC 9449 §10).
    ...(dpopJkt ? { dpopJkt } : {}),
  });
  return code.save();
}

/** POST /bench/codes {"count": n, "code_challenge": "...", "client_id"?: "webapp" (default), "webapp-es256" or "fapi-bank", "dpop_jkt"?} → {"codes": [...]}. */
async function mintCodes(req, res) {
  let text = '';
  for await (const chunk of req) text += chunk;
  const { count, code_challenge: challenge, client_id: clientId = 'webapp', dpop_jkt: dpopJkt } = JSON.parse(text);
  const webapp = webClients.get(clientId);
  if (!Number.isInteger(count) || count < 1 || count > 10_000 || typeof challenge !== 'string' || !webapp) {
    res.writeHead(400).end('count (1-10000), code_challenge and a web app client_id expected');
    return;
  }
  const codes = [];
  for (let i = 0; i < count; i++) codes.push(await mintCode(webapp, challenge, dpopJkt));
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ codes }));
}

const handle = provider.callback();
const server = createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/bench/codes') {
    mintCodes(req, res).catch((err) => res.writeHead(500).end(String(err)));
  } else {
    handle(req, res);
  }
});
server.keepAliveTimeout = 5_000;
server.listen(settings.port, '127.0.0.1', () => {
  process.stdout.write(`listening ${issuer}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
