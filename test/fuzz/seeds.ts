/**
 * Valid requests to every endpoint and page, the starting points of every mutation. A setup pass
 * gets what they need (tokens, a device flow, the page's session cookie and CSRF token) from the
 * running service over HTTP. Endpoints that do not exist yet (authorize, UserInfo, end session,
 * PAR) and DPoP proofs are seeded already: today they are 404s and ignored headers, and the day
 * they exist the same run fuzzes them. Their paths come from discovery when it names them.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { deviceGrant, tokenExchangeGrant, type FuzzFixture } from './fixture.js';
import { form, send, type FuzzRequest } from './request.js';

export const jwtBearer = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';

export function basic(id: string, secret: string): string {
  const enc = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

/** What mutations may use: signing with keys the fuzzer holds, so a mutated JWT can still verify. */
export interface Signers {
  /** Signs as the private_key_jwt client (its real key): claims reach the claim checks. */
  assertion(header: Partial<JWTHeaderParameters>, payload: JWTPayload): Promise<string>;
  /** Signs a DPoP proof (RFC 9449) with the fuzzer's own key, embedded as `jwk`. */
  dpop(header: Partial<JWTHeaderParameters>, payload: JWTPayload): Promise<string>;
}

export interface Seed {
  readonly name: string;
  build(): Promise<FuzzRequest>;
}

interface State {
  accessJwt: string;
  accessReference: string;
  userAccess: string;
  refreshToken: string;
  idToken: string;
  deviceCode: string;
  userCode: string;
  pageCookie: string;
  pageCsrf: string;
  paths: { authorize: string; userinfo: string; endSession: string; par: string };
}

async function json(port: number, req: FuzzRequest): Promise<Record<string, unknown>> {
  const res = await send(port, req, 15_000);
  if (!('status' in res) || res.status !== 200) throw new Error(`setup: ${req.seed} failed: ${JSON.stringify(res).slice(0, 500)}`);
  return JSON.parse(res.body) as Record<string, unknown>;
}

const formHeaders = (auth?: string): Array<[string, string]> => [
  ['content-type', 'application/x-www-form-urlencoded'],
  ...(auth ? ([['authorization', auth]] as Array<[string, string]>) : []),
];

const post = (seed: string, path: string, params: Array<[string, string]>, auth?: string): FuzzRequest => ({
  seed, method: 'POST', path, headers: formHeaders(auth), body: form(params),
});
const get = (seed: string, path: string, headers: Array<[string, string]> = []): FuzzRequest => ({ seed, method: 'GET', path, headers });

export async function createSeeds(fx: FuzzFixture): Promise<{ seeds: Seed[]; signers: Signers }> {
  const { port } = fx;
  const issuer = `http://127.0.0.1:${port}`;
  const secret = fx.clientSecrets;
  const dpopKey = await generateKeyPair('ES256', { extractable: true });
  const dpopJwk: JWK = await exportJWK(dpopKey.publicKey);
  const signers: Signers = {
    assertion: (header, payload) => new SignJWT(payload).setProtectedHeader({ alg: 'ES256', ...header }).sign(fx.pkjwt.privateKey),
    dpop: (header, payload) => new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: dpopJwk, ...header }).sign(dpopKey.privateKey),
  };
  const now = () => Math.floor(Date.now() / 1000);
  const assertion = () => signers.assertion({}, { iss: 'pkjwt', sub: 'pkjwt', aud: issuer, iat: now(), exp: now() + 60, jti: randomUUID() });
  const proof = (htm: string, path: string) => signers.dpop({}, { htm, htu: issuer + path, iat: now(), jti: randomUUID() });

  // Setup: one of each credential the seeds carry.
  const discovery = await json(port, get('setup: discovery', '/.well-known/openid-configuration'));
  const pathOf = (key: string, fallback: string) => (typeof discovery[key] === 'string' ? new URL(discovery[key]).pathname : fallback);
  const m2m = await json(port, post('setup', '/connect/token', [['grant_type', 'client_credentials']], basic('m2m', secret.m2m)));
  const reference = await json(port, post('setup', '/connect/token', [['grant_type', 'client_credentials']], basic('m2m-reference', secret['m2m-reference'])));
  const user = await json(port, post('setup', '/connect/token', [
    ['grant_type', 'password'], ['username', fx.user.username], ['password', fx.user.password], ['scope', 'openid profile api1.read offline_access'],
  ], basic('web', secret.web)));
  const device = await json(port, post('setup', '/connect/deviceauthorization', [['client_id', 'tv'], ['scope', 'openid api1.read']]));
  const page = await send(port, get('setup: device page', '/device'), 15_000);
  if (!('status' in page)) throw new Error(`setup: device page: ${page.detail}`);
  const cookie = [page.headers['set-cookie'] ?? []].flat().map((c) => c.split(';')[0]).join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
  if (!cookie || !csrf) throw new Error('setup: the device page gave no session cookie or CSRF token');
  const s: State = {
    accessJwt: String(m2m.access_token),
    accessReference: String(reference.access_token),
    userAccess: String(user.access_token),
    refreshToken: String(user.refresh_token),
    idToken: String(user.id_token),
    deviceCode: String(device.device_code),
    userCode: String(device.user_code),
    pageCookie: cookie,
    pageCsrf: csrf,
    paths: {
      authorize: pathOf('authorization_endpoint', '/connect/authorize'),
      userinfo: pathOf('userinfo_endpoint', '/connect/userinfo'),
      endSession: pathOf('end_session_endpoint', '/connect/endsession'),
      par: pathOf('pushed_authorization_request_endpoint', '/connect/par'),
    },
  };

  const token = '/connect/token';
  const pagePost = (name: string, params: Array<[string, string]>): FuzzRequest => ({
    ...post(`device page: ${name}`, '/device', [['csrf', s.pageCsrf], ...params]),
    headers: [...formHeaders(), ['cookie', s.pageCookie]],
  });
  const authorizeQuery = new URLSearchParams({
    response_type: 'code', client_id: 'web', redirect_uri: 'https://app.example/callback', scope: 'openid api1.read', state: 'xyz',
    nonce: 'n-0S6', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
  }).toString();
  const seed = (name: string, build: () => FuzzRequest | Promise<FuzzRequest>): Seed => ({ name, build: async () => build() });

  const seeds: Seed[] = [
    seed('token: client_credentials (Basic)', () => post('token: client_credentials (Basic)', token, [['grant_type', 'client_credentials'], ['scope', 'api1.read']], basic('m2m', secret.m2m))),
    seed('token: client_credentials (body)', () => post('token: client_credentials (body)', token, [
      ['grant_type', 'client_credentials'], ['client_id', 'm2m-reference'], ['client_secret', secret['m2m-reference']],
    ])),
    seed('token: password', () => post('token: password', token, [
      ['grant_type', 'password'], ['username', fx.user.username], ['password', fx.user.password], ['scope', 'openid api1.read offline_access'],
    ], basic('web', secret.web))),
    seed('token: refresh_token', () => post('token: refresh_token', token, [['grant_type', 'refresh_token'], ['refresh_token', s.refreshToken]], basic('web', secret.web))),
    seed('token: device_code', () => post('token: device_code', token, [['grant_type', deviceGrant], ['device_code', s.deviceCode], ['client_id', 'tv']])),
    seed('token: delegation', () => post('token: delegation', token, [['grant_type', 'delegation'], ['token', s.userAccess], ['scope', 'backend.read']], basic('api1.client', secret['api1.client']))),
    seed('token: token exchange', () => post('token: token exchange', token, [
      ['grant_type', tokenExchangeGrant], ['subject_token', s.userAccess], ['subject_token_type', accessTokenType],
      ['actor_token', s.accessJwt], ['actor_token_type', accessTokenType], ['scope', 'backend.read'], ['audience', 'backend'],
    ], basic('exchanger', secret.exchanger))),
    seed('token: private_key_jwt', async () => post('token: private_key_jwt', token, [
      ['grant_type', 'client_credentials'], ['client_assertion_type', jwtBearer], ['client_assertion', await assertion()],
    ])),
    seed('token: DPoP proof (RFC 9449)', async () => {
      const req = post('token: DPoP proof (RFC 9449)', token, [['grant_type', 'client_credentials']], basic('m2m', secret.m2m));
      return { ...req, headers: [...req.headers, ['dpop', await proof('POST', token)]] };
    }),
    seed('token: CORS request', () => {
      const req = post('token: CORS request', token, [['grant_type', 'password'], ['username', fx.user.username], ['password', fx.user.password]], basic('web', secret.web));
      return { ...req, headers: [...req.headers, ['origin', 'https://app.example']] };
    }),
    seed('token: CORS preflight', () => ({
      seed: 'token: CORS preflight', method: 'OPTIONS', path: token,
      headers: [['origin', 'https://app.example'], ['access-control-request-method', 'POST'], ['access-control-request-headers', 'authorization, content-type']],
    })),
    seed('introspection: reference token', () => post('introspection: reference token', '/connect/introspect', [['token', s.accessReference]], basic('api1', fx.apiSecret))),
    seed('introspection: JWT', () => post('introspection: JWT', '/connect/introspect', [['token', s.accessJwt], ['token_type_hint', 'access_token']], basic('api1', fx.apiSecret))),
    seed('introspection: private_key_jwt client', async () => post('introspection: private_key_jwt client', '/connect/introspect', [
      ['token', s.accessJwt], ['client_assertion_type', jwtBearer], ['client_assertion', await assertion()],
    ])),
    seed('revocation', () => post('revocation', '/connect/revocation', [['token', s.accessJwt], ['token_type_hint', 'access_token']], basic('m2m', secret.m2m))),
    seed('device authorization', () => post('device authorization', '/connect/deviceauthorization', [['client_id', 'tv'], ['scope', 'openid api1.read']])),
    seed('device page: GET', () => get('device page: GET', `/device?user_code=${encodeURIComponent(s.userCode)}`, [['cookie', s.pageCookie]])),
    seed('device page: code', () => pagePost('code', [['step', 'code'], ['user_code', s.userCode]])),
    seed('device page: sign-in', () => pagePost('sign-in', [['step', 'sign-in'], ['user_code', s.userCode], ['username', fx.user.username], ['password', fx.user.password]])),
    seed('device page: consent', () => pagePost('consent', [['step', 'consent'], ['user_code', s.userCode], ['decision', 'approve']])),
    seed('device page: sign-out', () => pagePost('sign-out', [['step', 'sign-out'], ['user_code', s.userCode]])),
    seed('discovery', () => get('discovery', '/.well-known/openid-configuration')),
    seed('OAuth metadata', () => get('OAuth metadata', '/.well-known/oauth-authorization-server')),
    seed('JWKS', () => get('JWKS', '/.well-known/openid-configuration/jwks')),
    seed('healthz', () => get('healthz', '/healthz')),
    seed('readyz', () => get('readyz', '/readyz')),
    seed('metrics', () => get('metrics', '/metrics', [['authorization', `Bearer ${fx.metricsToken}`]])),
    // Not there yet (404 today).
    seed('authorize (future)', () => get('authorize (future)', `${s.paths.authorize}?${authorizeQuery}`, [['cookie', s.pageCookie]])),
    seed('PAR (future)', () => post('PAR (future)', s.paths.par, [...new URLSearchParams(authorizeQuery)], basic('web', secret.web))),
    seed('UserInfo (future)', () => get('UserInfo (future)', s.paths.userinfo, [['authorization', `Bearer ${s.userAccess}`]])),
    seed('UserInfo with DPoP (future)', async () => get('UserInfo with DPoP (future)', s.paths.userinfo, [
      ['authorization', `DPoP ${s.userAccess}`], ['dpop', await proof('GET', s.paths.userinfo)],
    ])),
    seed('end session (future)', () => get('end session (future)', `${s.paths.endSession}?${new URLSearchParams({
      id_token_hint: s.idToken, post_logout_redirect_uri: 'https://app.example/', state: 'abc',
    })}`, [['cookie', s.pageCookie]])),
  ];
  return { seeds, signers };
}
