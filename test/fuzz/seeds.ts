/**
 * Valid requests to every endpoint and page, the starting points of every mutation, by surface:
 * the token side here, the authorization endpoint and its pages in `seeds-pages.ts`, PAR,
 * UserInfo, registration, DPoP and mutual TLS in `seeds-resources.ts`. A setup pass gets what
 * they share (tokens, a device flow, the device page's cookie and CSRF token) from the running
 * service over HTTP; a seed that needs a fresh page, code or client gets it in its `build`.
 * Endpoint paths come from discovery.
 */
import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import { certificateHeader, deviceGrant, spaRedirect, tokenExchangeGrant, type FuzzFixture } from './fixture.js';
import { send, type FuzzRequest } from './request.js';
import { basic, formHeaders, get, post, seed, type Seed, type SeedContext, type Signers, type State } from './seed-kit.js';
import { pageSeeds } from './seeds-pages.js';
import { resourceSeeds } from './seeds-resources.js';
import { codeOf, Visitor } from './visitor.js';

export { basic, type Seed, type Signers } from './seed-kit.js';
export const jwtBearer = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';

async function json(port: number, req: FuzzRequest, status = 200): Promise<Record<string, unknown>> {
  const res = await send(port, req, 15_000);
  if (!('status' in res) || res.status !== status) throw new Error(`setup: ${req.seed} failed: ${JSON.stringify(res).slice(0, 500)}`);
  return JSON.parse(res.body) as Record<string, unknown>;
}

export async function createSeeds(fx: FuzzFixture): Promise<{ seeds: Seed[]; signers: Signers }> {
  const { port } = fx;
  const issuer = `http://127.0.0.1:${port}`;
  const secret = fx.clientSecrets;
  const dpopKey = await generateKeyPair('ES256', { extractable: true });
  const dpopJwk: JWK = await exportJWK(dpopKey.publicKey);
  const signers: Signers = {
    assertion: (header, payload) => new SignJWT(payload).setProtectedHeader({ alg: 'ES256', ...header }).sign(fx.pkjwt.privateKey),
    dpop: (header, payload) => new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: dpopJwk, ...header }).sign(dpopKey.privateKey),
    certificates: Object.values(fx.certificates),
  };
  const now = () => Math.floor(Date.now() / 1000);
  const assertion = () => signers.assertion({}, { iss: 'pkjwt', sub: 'pkjwt', aud: issuer, iat: now(), exp: now() + 60, jti: randomUUID() });
  const proof = (htm: string, path: string, extra: JWTPayload = {}) => signers.dpop({}, { htm, htu: issuer + path, iat: now(), jti: randomUUID(), ...extra });
  const verifier = 'fuzz-pkce-verifier-0123456789-abcdefghijklmnopqrstuvwxyz';
  const pkce = { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };

  // Setup: one of each credential the seeds carry.
  const discovery = await json(port, get('setup: discovery', '/.well-known/openid-configuration'));
  const pathOf = (key: string, fallback: string) => (typeof discovery[key] === 'string' ? new URL(discovery[key]).pathname : fallback);
  const token = pathOf('token_endpoint', '/connect/token');
  const m2m = await json(port, post('setup', token, [['grant_type', 'client_credentials']], basic('m2m', secret.m2m)));
  const reference = await json(port, post('setup', token, [['grant_type', 'client_credentials']], basic('m2m-reference', secret['m2m-reference'])));
  const userParams: Array<[string, string]> = [
    ['grant_type', 'password'], ['username', fx.user.username], ['password', fx.user.password], ['scope', 'openid profile api1.read offline_access'],
  ];
  const user = await json(port, post('setup', token, userParams, basic('web', secret.web)));
  const dpopUser = await json(port, { ...post('setup: DPoP-bound', token, userParams, basic('web', secret.web)), headers: [...formHeaders(basic('web', secret.web)), ['dpop', await proof('POST', token)]] });
  const certificateBound = await json(port, {
    ...post('setup: certificate-bound', token, [['grant_type', 'client_credentials'], ['client_id', 'mtls-named']]),
    headers: [...formHeaders(), [certificateHeader, fx.certificates.named]],
  });
  const device = await json(port, post('setup', '/connect/deviceauthorization', [['client_id', 'tv'], ['scope', 'openid api1.read']]));
  const page = await send(port, get('setup: device page', '/device'), 15_000);
  if (!('status' in page)) throw new Error(`setup: device page: ${page.detail}`);
  const cookie = [page.headers['set-cookie'] ?? []].flat().map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
  if (!cookie || !csrf) throw new Error('setup: the device page gave no session cookie or CSRF token');
  const authorize = pathOf('authorization_endpoint', '/connect/authorize');
  const s: State = {
    accessJwt: String(m2m.access_token),
    accessReference: String(reference.access_token),
    userAccess: String(user.access_token),
    dpopUserAccess: String(dpopUser.access_token),
    certificateAccess: String(certificateBound.access_token),
    refreshToken: String(user.refresh_token),
    idToken: String(user.id_token),
    deviceCode: String(device.device_code),
    userCode: String(device.user_code),
    pageCookie: cookie,
    pageCsrf: csrf,
    paths: {
      authorize,
      signIn: `${authorize}/sign-in`,
      userinfo: pathOf('userinfo_endpoint', '/connect/userinfo'),
      endSession: pathOf('end_session_endpoint', '/connect/endsession'),
      par: pathOf('pushed_authorization_request_endpoint', '/connect/par'),
      register: pathOf('registration_endpoint', '/connect/register'),
    },
  };
  if (dpopUser.token_type !== 'DPoP') throw new Error('setup: the password grant with a DPoP proof gave no DPoP-bound token');
  const context: SeedContext = { fx, issuer, s, signers, proof, pkce };

  const pagePost = (name: string, params: Array<[string, string]>): FuzzRequest => ({
    ...post(`device page: ${name}`, '/device', [['csrf', s.pageCsrf], ...params]),
    headers: [...formHeaders(), ['cookie', s.pageCookie]],
  });
  // A code for the public client from a browser signed in once (signed in again when it lost its session).
  let signedIn: Visitor | undefined;
  const spaCode = async (probe: Parameters<Seed['build']>[0]): Promise<string> => {
    signedIn ??= new Visitor(probe);
    const query = new URLSearchParams({
      response_type: 'code', client_id: 'spa', redirect_uri: spaRedirect, scope: 'openid api1.read', state: 's', code_challenge: pkce.challenge, code_challenge_method: 'S256',
    });
    return codeOf(await signedIn.signInIfAsked(await signedIn.get(`${authorize}?${query}`), fx.user));
  };
  const codeRedemption = (name: string, code: string): FuzzRequest => post(name, token, [
    ['grant_type', 'authorization_code'], ['code', code], ['redirect_uri', spaRedirect], ['code_verifier', pkce.verifier], ['client_id', 'spa'],
  ]);

  const tokenSide: Seed[] = [
    seed('token', 'token: client_credentials (Basic)', () => post('token: client_credentials (Basic)', token, [['grant_type', 'client_credentials'], ['scope', 'api1.read']], basic('m2m', secret.m2m))),
    seed('token', 'token: client_credentials (body)', () => post('token: client_credentials (body)', token, [
      ['grant_type', 'client_credentials'], ['client_id', 'm2m-reference'], ['client_secret', secret['m2m-reference']],
    ])),
    seed('token', 'token: password', () => post('token: password', token, [
      ['grant_type', 'password'], ['username', fx.user.username], ['password', fx.user.password], ['scope', 'openid api1.read offline_access'],
    ], basic('web', secret.web))),
    seed('token', 'token: refresh_token', () => post('token: refresh_token', token, [['grant_type', 'refresh_token'], ['refresh_token', s.refreshToken]], basic('web', secret.web))),
    seed('token', 'token: device_code', () => post('token: device_code', token, [['grant_type', deviceGrant], ['device_code', s.deviceCode], ['client_id', 'tv']])),
    seed('token', 'token: delegation', () => post('token: delegation', token, [['grant_type', 'delegation'], ['token', s.userAccess], ['scope', 'backend.read']], basic('api1.client', secret['api1.client']))),
    seed('token', 'token: token exchange', () => post('token: token exchange', token, [
      ['grant_type', tokenExchangeGrant], ['subject_token', s.userAccess], ['subject_token_type', accessTokenType],
      ['actor_token', s.accessJwt], ['actor_token_type', accessTokenType], ['scope', 'backend.read'], ['audience', 'backend'],
    ], basic('exchanger', secret.exchanger))),
    seed('token', 'token: private_key_jwt', async () => post('token: private_key_jwt', token, [
      ['grant_type', 'client_credentials'], ['client_assertion_type', jwtBearer], ['client_assertion', await assertion()],
    ])),
    seed('DPoP', 'token: DPoP proof (RFC 9449)', async () => {
      const req = post('token: DPoP proof (RFC 9449)', token, [['grant_type', 'client_credentials']], basic('m2m', secret.m2m));
      return { ...req, headers: [...req.headers, ['dpop', await proof('POST', token)]] };
    }),
    seed('token', 'token: CORS request', () => {
      const req = post('token: CORS request', token, [['grant_type', 'password'], ['username', fx.user.username], ['password', fx.user.password]], basic('web', secret.web));
      return { ...req, headers: [...req.headers, ['origin', 'https://app.example']] };
    }),
    seed('token', 'token: CORS preflight', () => ({
      seed: 'token: CORS preflight', method: 'OPTIONS', path: token,
      headers: [['origin', 'https://app.example'], ['access-control-request-method', 'POST'], ['access-control-request-headers', 'authorization, content-type']],
    })),
    seed('introspection, revocation', 'introspection: reference token', () => post('introspection: reference token', '/connect/introspect', [['token', s.accessReference]], basic('api1', fx.apiSecret))),
    seed('introspection, revocation', 'introspection: JWT', () => post('introspection: JWT', '/connect/introspect', [['token', s.accessJwt], ['token_type_hint', 'access_token']], basic('api1', fx.apiSecret))),
    seed('introspection, revocation', 'introspection: private_key_jwt client', async () => post('introspection: private_key_jwt client', '/connect/introspect', [
      ['token', s.accessJwt], ['client_assertion_type', jwtBearer], ['client_assertion', await assertion()],
    ])),
    seed('introspection, revocation', 'revocation', () => post('revocation', '/connect/revocation', [['token', s.accessJwt], ['token_type_hint', 'access_token']], basic('m2m', secret.m2m))),
    seed('device flow', 'device authorization', () => post('device authorization', '/connect/deviceauthorization', [['client_id', 'tv'], ['scope', 'openid api1.read']])),
    seed('device flow', 'device page: GET', () => get('device page: GET', `/device?user_code=${encodeURIComponent(s.userCode)}`, [['cookie', s.pageCookie]])),
    seed('device flow', 'device page: code', () => pagePost('code', [['step', 'code'], ['user_code', s.userCode]])),
    seed('device flow', 'device page: sign-in', () => pagePost('sign-in', [['step', 'sign-in'], ['user_code', s.userCode], ['username', fx.user.username], ['password', fx.user.password]])),
    seed('device flow', 'device page: consent', () => pagePost('consent', [['step', 'consent'], ['user_code', s.userCode], ['decision', 'approve']])),
    seed('device flow', 'device page: sign-out', () => pagePost('sign-out', [['step', 'sign-out'], ['user_code', s.userCode]])),
    seed('metadata, operations', 'discovery', () => get('discovery', '/.well-known/openid-configuration')),
    seed('metadata, operations', 'OAuth metadata', () => get('OAuth metadata', '/.well-known/oauth-authorization-server')),
    seed('metadata, operations', 'JWKS', () => get('JWKS', '/.well-known/openid-configuration/jwks')),
    seed('metadata, operations', 'healthz', () => get('healthz', '/healthz')),
    seed('metadata, operations', 'readyz', () => get('readyz', '/readyz')),
    seed('metadata, operations', 'metrics', () => get('metrics', '/metrics', [['authorization', `Bearer ${fx.metricsToken}`]])),
    seed('token', 'token: authorization_code (public client, PKCE)', async (probe) => codeRedemption('token: authorization_code (public client, PKCE)', await spaCode(probe))),
    seed('DPoP', 'token: authorization_code with a DPoP proof', async (probe) => {
      const req = codeRedemption('token: authorization_code with a DPoP proof', await spaCode(probe));
      return { ...req, headers: [...req.headers, ['dpop', await proof('POST', token)]] };
    }),
    seed('DPoP', 'token: password with a DPoP proof', async () => ({
      ...post('token: password with a DPoP proof', token, userParams, basic('web', secret.web)),
      headers: [...formHeaders(basic('web', secret.web)), ['dpop', await proof('POST', token)]],
    })),
  ];
  return { seeds: [...tokenSide, ...pageSeeds(context), ...resourceSeeds(context)], signers };
}
