/**
 * The fuzzed deployment: a temp folder with a JSON config in the sample's shape (every flow, the
 * device page, private_key_jwt, delegation, token exchange, reference tokens, introspection,
 * metrics; the authorization endpoint with users, a code-flow client that asks for consent and a
 * public one that does not, PAR, DPoP, dynamic registration with an initial access token made by
 * `svc clients registration-token`, and mutual TLS through a trusted proxy's certificate header)
 * on a SQLite file, with fresh secrets per run. `secrets` lists every value that must never
 * appear in an answer or a log line.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClientKey } from '../../src/cli/create-client-key.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { issue, makeCa, makeSelfSigned, type Issued } from '../support/certificates.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';
export const tokenExchangeGrant = 'urn:ietf:params:oauth:grant-type:token-exchange';

export type ClientName = 'm2m' | 'm2m-reference' | 'web' | 'api1.client' | 'exchanger' | 'code';

/** The mutual TLS proxy's header (`mtls.certificateHeader`); the fuzzer's own address is the trusted proxy. */
export const certificateHeader = 'x-ssl-client-cert';
/** The code-flow clients' redirect and post-logout URIs. */
export const codeRedirect = 'https://app.example/callback';
// https: a public client at a loopback or custom-scheme URI is asked for consent every time (RFC 8252 §8.6).
export const spaRedirect = 'https://spa.example/callback';
export const postLogoutRedirect = 'https://app.example/signed-out';

export interface FuzzFixture {
  readonly dir: string;
  readonly configFile: string;
  readonly port: number;
  readonly clientSecrets: Readonly<Record<ClientName, string>>;
  readonly apiSecret: string;
  readonly user: { readonly username: string; readonly password: string };
  readonly metricsToken: string;
  readonly pkjwt: { readonly clientId: string; readonly privateKey: KeyObject; readonly privateKeyPem: string };
  /** `svc clients registration-token`'s answer: opens `POST /connect/register`. */
  readonly initialAccessToken: string;
  /** Client certificates as the proxy forwards them (URL-encoded PEM): `named` chains to `mtls.clientCa`, `pinned` is an `X509Thumbprint`, `stranger` is neither. */
  readonly certificates: { readonly named: string; readonly pinned: string; readonly stranger: string };
  /** Everything secret in the deployment: never to be seen in an answer (unless the request carried it) or a log line. */
  readonly secrets: readonly string[];
}

export async function createFuzzFixture(port: number): Promise<FuzzFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fuzz-'));
  const secret = (): string => randomBytes(18).toString('base64url');
  const clientSecrets: Record<ClientName, string> = {
    m2m: secret(), 'm2m-reference': secret(), web: secret(), 'api1.client': secret(), exchanger: secret(), code: secret(),
  };
  const apiSecret = secret();
  const user = { username: 'alice', password: secret() };
  const metricsToken = secret();
  const cookieSecret = secret() + secret();
  const clientKey = await createClientKey({ clientId: 'pkjwt', alg: 'ES256', days: 30 });
  const privateKey = createPrivateKey(clientKey.privateKeyPem);
  // A low scrypt cost: the fuzzer sends many password requests; the format is the production one.
  const passwordHash = await hashPassword(user.password, { ln: 10, r: 8, p: 1 });
  const shared = (name: ClientName) => [{ value: hashSecret(clientSecrets[name]), description: `${name} secret` }];
  const clientCa = await makeCa('CN=Fuzz Client CA');
  const partnerSubject = 'CN=partner, O=Fuzz Partner';
  const [named, pinned, stranger] = await Promise.all([issue(clientCa, partnerSubject), makeSelfSigned('CN=native-app'), makeSelfSigned('CN=stranger')]);
  writeFileSync(join(dir, 'client-ca.pem'), clientCa.certificatePem);
  const forwarded = (c: Issued): string => encodeURIComponent(c.certificatePem);

  const config = {
    port,
    issuer: `http://127.0.0.1:${port}`,
    host: '127.0.0.1',
    store: 'sqlite:./data/svc.db',
    logLevel: 'debug',
    workers: 1,
    pluginDirs: [join(repoRoot, 'plugins')],
    metrics: { enabled: true, bearerToken: metricsToken },
    deviceFlow: { cookieSecret, maxFailedAttempts: 1_000_000 },
    // The fuzzer sends floods of failing credentials from one address on purpose; throttled it
    // would see only 429s. The throttle has its own tests.
    authThrottle: { pairThreshold: 1_000_000, addressThreshold: 1_000_000 },
    passwordThrottle: { pairThreshold: 1_000_000, userThreshold: 1_000_000, addressThreshold: 1_000_000 },
    // Every page case opens a few interactions; over the limit the pages would only be 429s.
    interactionLimit: { maxPerAddress: 1_000_000, maxTotal: 1_000_000 },
    // The fuzzer's own address is the proxy: the certificate header path (RFC 8705) is reached,
    // and X-Forwarded-For is believed (the mutations vary it).
    trustedProxies: ['127.0.0.1'],
    mtls: { certificateHeader, clientCa: './client-ca.pem' },
    registration: {
      // offline_access (and so refresh_token) and the native-app policy: every registration seed is one the policy accepts.
      enabled: true, allowedGrantTypes: ['authorization_code', 'refresh_token', 'client_credentials'], allowedScopes: ['openid', 'profile', 'api1.read', 'offline_access'],
      redirectUris: 'https-or-loopback',
      allowedAuthMethods: ['client_secret_basic', 'client_secret_post', 'none', 'tls_client_auth', 'self_signed_tls_client_auth'],
    },
    apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }, { name: 'backend.read' }],
    apiResources: [
      { name: 'api1', scopes: ['api1.read', 'api1.write'], secrets: [{ value: hashSecret(apiSecret) }] },
      { name: 'backend', scopes: ['backend.read'] },
    ],
    identityResources: [{ name: 'openid', claims: ['sub'] }, { name: 'profile', claims: ['name'] }],
    users: [{ subjectId: '818727', username: user.username, password: passwordHash, claims: { name: 'Alice Smith' } }],
    clients: [
      { clientId: 'm2m', clientSecrets: shared('m2m'), allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read', 'api1.write'] },
      {
        clientId: 'm2m-reference', clientSecrets: shared('m2m-reference'), allowedGrantTypes: ['client_credentials'],
        allowedScopes: ['api1.read'], accessTokenType: 'reference',
      },
      {
        clientId: 'web', clientSecrets: shared('web'), allowedGrantTypes: ['password', 'refresh_token'],
        allowedScopes: ['openid', 'profile', 'api1.read'], allowOfflineAccess: true, allowedCorsOrigins: ['https://app.example'],
        // End session takes this client's ID token (from the password grant) as its hint.
        postLogoutRedirectUris: [postLogoutRedirect],
      },
      { clientId: 'api1.client', clientSecrets: shared('api1.client'), allowedGrantTypes: ['delegation'], allowedScopes: ['backend.read'], allowedSubjectTokenAudiences: ['api1'] },
      {
        clientId: 'exchanger', clientSecrets: shared('exchanger'), allowedGrantTypes: [tokenExchangeGrant],
        allowedScopes: ['api1.read', 'backend.read'], allowedSubjectTokenAudiences: ['api1'],
      },
      { clientId: 'pkjwt', clientSecrets: [clientKey.secret], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
      // The sign-in, consent and logout pages: a confidential code-flow client that asks for consent ...
      {
        clientId: 'code', clientName: 'Fuzz web app', clientSecrets: shared('code'), allowedGrantTypes: ['authorization_code', 'refresh_token'],
        allowedScopes: ['openid', 'profile', 'api1.read'], allowOfflineAccess: true, requireConsent: true,
        redirectUris: [codeRedirect], postLogoutRedirectUris: [postLogoutRedirect], allowedCorsOrigins: ['https://app.example'],
      },
      // ... and a public one (PKCE) that does not, so a sign-in ends in a code at once.
      {
        clientId: 'spa', requireClientSecret: false, allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile', 'api1.read'],
        redirectUris: [spaRedirect], postLogoutRedirectUris: [postLogoutRedirect],
      },
      // Mutual TLS (RFC 8705): by subject under the CA (certificate-bound tokens), and pinned by thumbprint.
      {
        clientId: 'mtls-named', clientSecrets: [{ type: 'X509Name', value: partnerSubject }], allowedGrantTypes: ['client_credentials'],
        allowedScopes: ['api1.read'], requireCertificateBoundTokens: true,
      },
      { clientId: 'mtls-pinned', clientSecrets: [{ type: 'X509Thumbprint', value: pinned.thumbprint }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
      {
        clientId: 'tv', requireClientSecret: false, allowedGrantTypes: [deviceGrant, 'refresh_token'],
        allowedScopes: ['openid', 'profile', 'api1.read'], allowOfflineAccess: true, pollingInterval: 1,
      },
    ],
  };
  const configFile = join(dir, 'svc.config.json');
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  // The operator's way to open registration; it also creates the database the service then opens.
  const made = execFileSync(process.execPath, [join(repoRoot, 'bin/svc.mjs'), 'clients', 'registration-token', '--config', configFile, '--json', '--max-uses', '1000000'], {
    cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production', SVC_CONFIG: '' },
  });
  const initialAccessToken = String((JSON.parse(made) as { initialAccessToken: unknown }).initialAccessToken);
  const pkcs8Body = clientKey.privateKeyPem.replace(/-----[^-]+-----|\s/g, '');
  return {
    dir,
    configFile,
    port,
    clientSecrets,
    apiSecret,
    user,
    metricsToken,
    pkjwt: { clientId: 'pkjwt', privateKey, privateKeyPem: clientKey.privateKeyPem },
    initialAccessToken,
    certificates: { named: forwarded(named), pinned: forwarded(pinned), stranger: forwarded(stranger) },
    secrets: [
      ...Object.values(clientSecrets), apiSecret, user.password, metricsToken, cookieSecret, initialAccessToken,
      // The private key's PEM body and its JWK `d`, in pieces long enough not to match by chance.
      pkcs8Body.slice(-40), String(privateKey.export({ format: 'jwk' }).d),
    ],
  };
}
