/**
 * Certificate-bound tokens where the service itself accepts tokens (RFC 8705 §3, §4), over real
 * TLS with certificates made at test time: delegation and token exchange take a token bound to a
 * client certificate only from a request that came with that certificate (the service's own
 * handshake, or a trusted proxy's header), and a public client's refresh token bound to its
 * certificate refreshes only with the same certificate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { hashSecret } from '../../src/sdk/hash.js';
import { makePki, type Issued, type Pki } from '../support/certificates.js';
import { freePort, postForm, startServer, type TestServer } from '../support/server.js';
import { httpsPost, type Answer } from '../support/tls-client.js';
import { accessTokenType, alice, auth, configWith, secretOf, tokenExchange } from '../fixtures/grant-plugins/world.js';

let pki: Pki;
let server: TestServer;

const userScopes = ['openid', 'api1.read', 'backend.read'];
const boundClients = () => [
  // A confidential app whose user tokens are bound to the certificate it holds.
  {
    clientId: 'bound-web', clientSecrets: [{ value: hashSecret(secretOf('bound-web')) }], requireCertificateBoundTokens: true,
    allowedGrantTypes: ['password', 'refresh_token'], allowedScopes: userScopes, allowOfflineAccess: true,
  },
  // A public client that uses its certificate only to bind its tokens (RFC 8705 §4).
  {
    clientId: 'native-public', requireClientSecret: false, requireCertificateBoundTokens: true,
    allowedGrantTypes: ['password', 'refresh_token'], allowedScopes: userScopes, allowOfflineAccess: true,
  },
];

beforeAll(async () => {
  pki = await makePki();
  const port = await freePort();
  server = await startServer(configWith(boundClients(), {
    port,
    issuer: `https://127.0.0.1:${port}`,
    tls: { certificate: pki.file('server.pem'), key: pki.file('server.key'), requestClientCertificate: true },
    mtls: { clientCa: pki.file('client-ca.pem') },
  }));
});
afterAll(async () => {
  await server?.close();
});

const tls = (issued?: Issued) => ({ ca: pki.serverCa.certificatePem, ...(issued ? { cert: issued.certificatePem, key: issued.keyPem } : {}) });
const post = (form: Record<string, string>, issued: Issued | undefined, headers: Record<string, string> = {}): Promise<Answer> =>
  httpsPost(`${server.url}/connect/token`, form, tls(issued), headers);
const password = { grant_type: 'password', username: alice.username, password: alice.password };

/** A user token of `bound-web`, bound to `issued`. */
async function boundUserToken(issued: Issued): Promise<string> {
  const res = await post({ ...password, scope: 'api1.read' }, issued, auth('bound-web'));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const token = res.body.access_token as string;
  expect(decodeJwt(token).cnf).toEqual({ 'x5t#S256': issued.thumbprint });
  return token;
}

/** A user token of `web` (no binding). */
async function plainUserToken(): Promise<string> {
  const res = await post({ ...password, scope: 'api1.read' }, undefined, auth('web'));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.access_token as string;
}

const delegate = (token: string, issued?: Issued) => post({ grant_type: 'delegation', token, scope: 'backend.read' }, issued, auth('api1.client'));
const exchange = (params: Record<string, string>, issued?: Issued) =>
  post({ grant_type: tokenExchange, subject_token_type: accessTokenType, scope: 'backend.read', ...params }, issued, auth('exchanger'));

describe('delegation of a certificate-bound user token (RFC 8705 §3)', () => {
  const refused = { error: 'invalid_grant', error_description: 'The token is bound to a TLS client certificate this request does not present.' };

  it('accepts it over a connection with the certificate it is bound to', async () => {
    const token = await boundUserToken(pki.partner);
    const res = await delegate(token, pki.partner);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(decodeJwt(res.body.access_token as string)).toMatchObject({ sub: alice.subjectId, act: { client_id: 'bound-web' } });
  });

  it('refuses it without a client certificate: 400 invalid_grant, the reason in the log only', async () => {
    const token = await boundUserToken(pki.partner);
    const res = await delegate(token);
    expect([res.status, res.body]).toEqual([400, refused]);
    expect(server.logText()).toContain('the token is certificate-bound and the request came without a client certificate');
    expect(server.logText()).not.toContain(token);
  });

  it('refuses it over a connection with another certificate', async () => {
    const token = await boundUserToken(pki.partner);
    const res = await delegate(token, pki.stranger);
    expect([res.status, res.body]).toEqual([400, refused]);
    expect(server.logText()).toContain('the token is bound to another client certificate than the request came with');
  });

  it('accepts an unbound token whatever certificate the connection has', async () => {
    const res = await delegate(await plainUserToken(), pki.stranger);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe('token exchange of certificate-bound tokens (RFC 8705 §3, RFC 8693 §2.2.2)', () => {
  const refused = (role: string) => ({ error: 'invalid_request', error_description: `The ${role}_token is bound to a TLS client certificate this request does not present.` });

  it('accepts a bound subject_token over a connection with its certificate', async () => {
    const token = await boundUserToken(pki.partner);
    const res = await exchange({ subject_token: token }, pki.partner);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.issued_token_type).toBe(accessTokenType);
  });

  it('refuses a bound subject_token without a certificate and with another one: 400 invalid_request', async () => {
    const token = await boundUserToken(pki.partner);
    const without = await exchange({ subject_token: token });
    expect([without.status, without.body]).toEqual([400, refused('subject')]);
    const other = await exchange({ subject_token: token }, pki.stranger);
    expect([other.status, other.body]).toEqual([400, refused('subject')]);
  });

  it('checks a bound actor_token the same way', async () => {
    const subject = await plainUserToken();
    const actor = await boundUserToken(pki.partner);
    const form = { subject_token: subject, actor_token: actor, actor_token_type: accessTokenType };
    const other = await exchange(form, pki.stranger);
    expect([other.status, other.body]).toEqual([400, refused('actor')]);
    const same = await exchange(form, pki.partner);
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(decodeJwt(same.body.access_token as string).act).toMatchObject({ sub: alice.subjectId, client_id: 'bound-web' });
  });
});

describe('a public client refresh token bound to its certificate (RFC 8705 §4)', () => {
  const refused = { error: 'invalid_grant', error_description: 'The refresh token is bound to a TLS client certificate this request does not present.' };
  const refresh = (refreshToken: string, issued?: Issued) =>
    post({ grant_type: 'refresh_token', client_id: 'native-public', refresh_token: refreshToken }, issued);

  async function publicTokens(issued: Issued): Promise<Record<string, unknown>> {
    const res = await post({ ...password, client_id: 'native-public', scope: 'api1.read offline_access' }, issued);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ 'x5t#S256': issued.thumbprint });
    return res.body;
  }

  it('refreshes with the same certificate, and the new refresh token stays bound', async () => {
    const first = await publicTokens(pki.partner);
    const second = await refresh(first.refresh_token as string, pki.partner);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(decodeJwt(second.body.access_token as string).cnf).toEqual({ 'x5t#S256': pki.partner.thumbprint });
    const third = await refresh(second.body.refresh_token as string, pki.stranger);
    expect([third.status, third.body]).toEqual([400, refused]);
  });

  it('refuses a refresh with another certificate: 400 invalid_grant, and the token stays usable by its holder', async () => {
    const { refresh_token: token } = await publicTokens(pki.partner);
    const res = await refresh(token as string, pki.stranger);
    expect([res.status, res.body]).toEqual([400, refused]);
    expect(server.logText()).toContain('certificate-bound refresh token with another client certificate');
    expect((await refresh(token as string, pki.partner)).status).toBe(200);
  });

  it('refuses a refresh without a certificate: the client requires certificate-bound tokens, 400 invalid_request', async () => {
    const { refresh_token: token } = await publicTokens(pki.partner);
    const res = await refresh(token as string);
    expect([res.status, res.body]).toEqual([400, {
      error: 'invalid_request',
      error_description: 'This client must present a TLS client certificate: its access tokens are bound to it.',
    }]);
  });

  it('a confidential client refresh token is bound by its authentication, not its certificate', async () => {
    const first = await post({ ...password, scope: 'api1.read offline_access' }, pki.partner, auth('bound-web'));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const res = await post({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string }, pki.stranger, auth('bound-web'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(decodeJwt(res.body.access_token as string).cnf).toEqual({ 'x5t#S256': pki.stranger.thumbprint });
  });
});

describe('behind a trusted proxy: the certificate comes in mtls.certificateHeader', () => {
  const header = 'X-SSL-Client-Cert';
  let proxied: TestServer;
  beforeAll(async () => {
    proxied = await startServer(configWith(boundClients(), {
      trustedProxies: ['127.0.0.1'],
      mtls: { certificateHeader: header, clientCa: pki.file('client-ca.pem') },
    }));
  });
  afterAll(async () => {
    await proxied?.close();
  });
  const forwarded = (issued?: Issued): Record<string, string> => (issued ? { [header]: encodeURIComponent(issued.certificatePem) } : {});
  const proxiedToken = (form: Record<string, string>, clientId: string, issued?: Issued) =>
    postForm(`${proxied.url}/connect/token`, form, { ...auth(clientId), ...forwarded(issued) });

  it('delegation accepts a bound token with the forwarded certificate, and refuses another one', async () => {
    const user = await proxiedToken({ ...password, scope: 'api1.read' }, 'bound-web', pki.partner);
    expect(user.status, JSON.stringify(user.body)).toBe(200);
    const token = user.body.access_token as string;
    expect(decodeJwt(token).cnf).toEqual({ 'x5t#S256': pki.partner.thumbprint });
    const form = { grant_type: 'delegation', token, scope: 'backend.read' };
    expect((await proxiedToken(form, 'api1.client', pki.partner)).status).toBe(200);
    const other = await proxiedToken(form, 'api1.client', pki.stranger);
    expect([other.status, other.body]).toEqual([400, { error: 'invalid_grant', error_description: 'The token is bound to a TLS client certificate this request does not present.' }]);
  });
});
