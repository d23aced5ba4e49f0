/**
 * The benchmark's deployment: a temp folder holding one JSON config per service variant, a
 * SQLite file store each, and a client per scenario with fresh credentials.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClientKey } from '../../src/cli/create-client-key.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { repoRoot } from './options.js';

export const deviceGrantType = 'urn:ietf:params:oauth:grant-type:device_code';
/** The web app's redirect URI (authorization_code and refresh rows); never opened, only read from Location. */
export const webRedirect = 'https://web.example/callback';

export interface BenchFixture {
  readonly dir: string;
  readonly secrets: Readonly<Record<'m2m' | 'reference' | 'web' | 'delegation' | 'api1' | 'webapp', string>>;
  /** The one user; `subjectId` is node-oidc-provider's accountId for the same person. */
  readonly user: { readonly subjectId: string; readonly username: string; readonly password: string };
  /** The private_key_jwt client's key. */
  readonly assertionKey: { readonly clientId: string; readonly alg: 'RS256' | 'ES256'; readonly privateKey: KeyObject };
  /**
   * The Kubernetes issuer the workload-identity row trusts (its keys written into the config, as
   * an air-gapped cluster's are): its signing key, of the private_key_jwt row's algorithm.
   */
  readonly workloadIssuer: { readonly issuer: string; readonly audience: string; readonly clientId: string; readonly kid: string; readonly alg: 'RS256' | 'ES256'; readonly privateKey: KeyObject };
  /**
   * The FAPI 2.0 client (`fapi2: 'security'`, issue 37) of the fapi2-code row: its ES256 key signs
   * its request objects and client assertions. On every server whose access tokens are ES256.
   */
  readonly fapiClient: { readonly clientId: string; readonly privateKey: KeyObject };
  /**
   * Writes a config and returns its path. `store` is relative to the temp folder.
   */
  writeConfig(name: string, settings: ConfigSettings): string;
  /** Writes the settings of test/bench/oidc-provider.mjs (same clients and secrets) and returns the path. */
  writeOidcProviderSettings(name: string, settings: { port: number; accessTokenAlgorithm: 'ES256' | 'RS256' }): string;
}

export interface ConfigSettings {
  port: number;
  store: string;
  accessTokenAlgorithm?: 'ES256' | 'RS256';
  workers?: number | 'auto';
  logLevel?: string;
  /** `signing.threads`. */
  signingThreads?: number;
  /**
   * The store soak's settings: reference tokens, codes and (sliding) refresh tokens of the
   * web apps live `lifetimeSeconds`, the sweep runs every `cleanupInterval`, and `/metrics` is on.
   */
  storeSoak?: { lifetimeSeconds: number; cleanupInterval: number };
}

export { freePort } from '../support/free-port.js';

/**
 * How long the web apps' authorization codes live, in seconds, on each server: a round's pool of
 * codes is made before the round, and on a slow store making tens of thousands takes minutes
 * (the service's default 300 s expired a pool), so ours get the longest the service allows.
 */
export const codeLifetimeSeconds = { svc: 600, oidcProvider: 300 } as const;

/** The API the resource indicator row names (RFC 8707), the same URI at both servers. */
export const reportsResource = 'urn:bench:reports';

export async function createFixture(assertionAlg: 'RS256' | 'ES256'): Promise<BenchFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const secret = (): string => randomBytes(18).toString('base64url');
  const secrets = { m2m: secret(), reference: secret(), web: secret(), delegation: secret(), api1: secret(), webapp: secret() };
  const user = { subjectId: '1001', username: 'alice', password: secret() };
  const clientKey = await createClientKey({ clientId: 'pkj', alg: assertionAlg, days: 30 });
  // One scrypt hash, made once: the password grant runs only to get the delegation input token.
  const passwordHash = await hashPassword(user.password);

  const shared = (value: string) => [{ value: hashSecret(value) }];
  const webApp = {
    clientId: 'webapp',
    clientSecrets: shared(secrets.webapp),
    allowedGrantTypes: ['authorization_code', 'refresh_token'],
    allowedScopes: ['openid', 'api1.read'],
    allowOfflineAccess: true,
    redirectUris: [webRedirect],
    authorizationCodeLifetime: codeLifetimeSeconds.svc,
  };
  const clients = [
    // reports.read: the resource indicator row (RFC 8707) asks for a token for the reports API alone.
    { clientId: 'm2m', clientSecrets: shared(secrets.m2m), allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read', 'reports.read'] },
    {
      clientId: 'm2m-reference',
      clientSecrets: shared(secrets.reference),
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
      accessTokenType: 'reference',
    },
    // As oidc-provider's private_key_jwt figure: an opaque (reference) token.
    {
      clientId: 'pkj',
      clientSecrets: [clientKey.secret],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
      accessTokenType: 'reference',
    },
    { clientId: 'web', clientSecrets: shared(secrets.web), allowedGrantTypes: ['password'], allowedScopes: ['api1.read'] },
    // A web app signing users in: codes (PKCE) and rotating refresh tokens.
    webApp,
    // The same web app with ES256 ID tokens (docs/guides/operations.md "ID token algorithms"); the same secret.
    { ...webApp, clientId: 'webapp-es256', allowedIdentityTokenSigningAlgorithms: ['ES256'] },
    { clientId: 'api1.client', clientSecrets: shared(secrets.delegation), allowedGrantTypes: ['delegation'], allowedScopes: ['backend.read'], allowedSubjectTokenAudiences: ['api1'] },
  ];
  const deviceClient = {
    clientId: 'tv',
    requireClientSecret: false,
    allowedGrantTypes: [deviceGrantType],
    allowedScopes: ['api1.read'],
    deviceCodeLifetime: 3600,
    pollingInterval: 1,
  };

  const privateKey = createPrivateKey(clientKey.privateKeyPem);
  // FAPI 2.0 allows no RS256 (SP §5.4): its own ES256 key, whatever BENCH_PKJ_ALG says.
  const fapiKey = await createClientKey({ clientId: 'fapi-bank', alg: 'ES256', days: 30 });
  const fapiClient = {
    clientId: 'fapi-bank', fapi2: 'security', clientSecrets: [fapiKey.secret], tokenEndpointAuthMethods: ['private_key_jwt'],
    allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'api1.read'], redirectUris: [webRedirect],
    authorizationCodeLifetime: 60, allowedIdentityTokenSigningAlgorithms: ['ES256'], authorizationSignedResponseAlg: 'ES256',
  };
  const fapiPrivateKey = createPrivateKey(fapiKey.privateKeyPem);
  const workloadKeys = assertionAlg === 'RS256' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const workloadIssuer = {
    issuer: 'https://kubernetes.default.svc.cluster.local', audience: 'svc-bench', clientId: 'workload', kid: 'bench-1', alg: assertionAlg, privateKey: workloadKeys.privateKey,
  };
  // A workload authenticating with its Kubernetes service account token (plugins/workload-identity), beside pkj.
  clients.push({
    clientId: workloadIssuer.clientId,
    clientSecrets: [{ type: 'FederatedCredential', value: JSON.stringify({ issuer: workloadIssuer.issuer, subject: 'system:serviceaccount:payments:api' }) }] as never,
    allowedGrantTypes: ['client_credentials'],
    allowedScopes: ['api1.read'],
    accessTokenType: 'reference',
  });
  const workloadPlugin = {
    issuers: [{
      issuer: workloadIssuer.issuer, audience: workloadIssuer.audience, algorithms: [assertionAlg],
      jwks: { keys: [{ ...workloadKeys.publicKey.export({ format: 'jwk' }), kid: workloadIssuer.kid, use: 'sig', alg: assertionAlg }] },
    }],
  };

  return {
    dir,
    secrets,
    user,
    assertionKey: { clientId: 'pkj', alg: assertionAlg, privateKey },
    workloadIssuer,
    fapiClient: { clientId: fapiClient.clientId, privateKey: fapiPrivateKey },
    writeOidcProviderSettings(name, settings) {
      const file = join(dir, `${name}.oidc-provider.json`);
      const assertionJwk = { ...createPublicKey(privateKey).export({ format: 'jwk' }), alg: assertionAlg };
      const webapp = { redirectUri: webRedirect, accountId: user.subjectId, codeLifetimeSeconds: codeLifetimeSeconds.oidcProvider };
      const fapiJwk = { ...createPublicKey(fapiPrivateKey).export({ format: 'jwk' }), alg: 'ES256' };
      writeFileSync(file, `${JSON.stringify({ ...settings, secrets, assertionJwk, webapp, fapiJwk }, null, 2)}\n`);
      return file;
    },
    writeConfig(name, settings) {
      const file = join(dir, `${name}.svc.json`);
      const soak = settings.storeSoak;
      const shortLived = (client: Record<string, unknown>): Record<string, unknown> => {
        if (!soak) return client;
        if (client.clientId === 'm2m-reference') return { ...client, accessTokenLifetime: soak.lifetimeSeconds };
        if (client.clientId === 'webapp' || client.clientId === 'webapp-es256') {
          return { ...client, authorizationCodeLifetime: soak.lifetimeSeconds, slidingRefreshTokenLifetime: soak.lifetimeSeconds };
        }
        return client;
      };
      const config = {
        port: settings.port,
        issuer: `http://127.0.0.1:${settings.port}`,
        store: settings.store,
        // The default level, as users run it (issue 21); the "warn" variant keeps a row for comparison.
        logLevel: settings.logLevel ?? 'info',
        workers: settings.workers ?? 1,
        pluginDirs: [join(repoRoot, 'plugins')],
        signing: {
          ...(settings.accessTokenAlgorithm ? { accessTokenAlgorithm: settings.accessTokenAlgorithm } : {}),
          ...(settings.signingThreads ? { threads: settings.signingThreads } : {}),
          idTokenAlgorithms: ['RS256', 'ES256'],
        },
        apiScopes: [{ name: 'api1.read' }, { name: 'backend.read' }, { name: 'reports.read' }],
        identityResources: [{ name: 'openid', claims: ['sub'] }],
        apiResources: [
          { name: 'api1', scopes: ['api1.read'], secrets: shared(secrets.api1) },
          { name: 'backend', scopes: ['backend.read'] },
          // Named by its resource indicator (RFC 8707), as node-oidc-provider's beside it.
          { name: 'reports', uri: reportsResource, scopes: ['reports.read'] },
        ],
        users: [{ subjectId: user.subjectId, username: user.username, password: passwordHash }],
        // The FAPI client only where access tokens are ES256: RS256 ones would stop start-up (SP §5.4).
        clients: [...clients, deviceClient, ...(settings.accessTokenAlgorithm === 'RS256' ? [] : [fapiClient])].map(shortLived),
        ...(soak ? { cleanupInterval: soak.cleanupInterval, metrics: { enabled: true } } : {}),
        plugins: { 'workload-identity': workloadPlugin },
        // The device-poll scenario first starts thousands of device flows from this one address
        // in seconds (codes to poll), which is just the flood the default limit refuses.
        deviceFlow: { maxAuthorizationsPerAddress: 1_000_000, maxAuthorizationsPerClient: 1_000_000 },
        // The code and refresh scenarios first sign in hundreds of times from this address (codes
        // to redeem), each sign-in an interaction: the same kind of flood.
        interactionLimit: { maxPerAddress: 1_000_000, maxTotal: 1_000_000 },
        // The login row signs alice in from every connection at once: the back-off that guards
        // one user's password would refuse most of them (each sign-in in progress counts).
        passwordThrottle: { pairThreshold: 1_000_000, userThreshold: 1_000_000, addressThreshold: 1_000_000 },
      };
      writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
      return file;
    },
  };
}
