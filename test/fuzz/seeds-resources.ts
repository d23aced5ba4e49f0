/**
 * Seeds of PAR (RFC 9126), UserInfo (OIDC Core §5.3), dynamic registration (RFC 7591 JSON bodies
 * with the initial access token; RFC 7592 GET, PUT and DELETE with a fresh client's registration
 * access token), DPoP proofs (RFC 9449) at PAR and UserInfo, and the mutual TLS certificate
 * header a trusted proxy writes (RFC 8705): by a CA-issued subject, a pinned thumbprint, a
 * stranger's certificate, and a certificate-bound token at UserInfo and introspection.
 */
import { createHash } from 'node:crypto';
import { certificateHeader, codeRedirect, spaRedirect } from './fixture.js';
import { basic, formHeaders, get, jsonRequest, post, seed, withHeader, type Seed, type SeedContext } from './seed-kit.js';
import { registerClient, registeredCodeClient } from './seeds-pages.js';
import type { Probe } from './visitor.js';

export function resourceSeeds(ctx: SeedContext): Seed[] {
  const { fx, s, pkce, proof } = ctx;
  const { par, userinfo, register } = s.paths;
  const token = '/connect/token';
  const pushed: Array<[string, string]> = [
    ['response_type', 'code'], ['client_id', 'code'], ['redirect_uri', codeRedirect], ['scope', 'openid profile api1.read offline_access'],
    ['state', 'xyz'], ['nonce', 'n-0S6'], ['code_challenge', pkce.challenge], ['code_challenge_method', 'S256'],
  ];
  const codeAuth = basic('code', fx.clientSecrets.code);
  const ath = (accessToken: string): string => createHash('sha256').update(accessToken).digest('base64url');
  const initial = `Bearer ${fx.initialAccessToken}`;
  /** A client registered for this case, so a PUT or DELETE never takes another case's client. */
  const fresh = (probe: Probe) => registerClient(ctx, probe, { ...registeredCodeClient, grant_types: ['authorization_code', 'refresh_token'] });
  const mtlsToken = (name: string, clientId: string, certificate: string) => ({
    ...post(name, token, [['grant_type', 'client_credentials'], ['client_id', clientId], ['scope', 'api1.read']]),
    headers: [...formHeaders(), [certificateHeader, certificate]] as Array<[string, string]>,
  });

  return [
    // ---- PAR
    seed('PAR', 'PAR: client_secret_basic', () => post('PAR: client_secret_basic', par, pushed, codeAuth)),
    seed('PAR', 'PAR: client_secret_post, request parameters as JSON-ish values', () => post('PAR: client_secret_post, request parameters as JSON-ish values', par, [
      ...pushed, ['client_secret', fx.clientSecrets.code], ['prompt', 'login consent'], ['max_age', '0'], ['ui_locales', 'de en'], ['login_hint', 'alice'],
    ])),
    seed('PAR', 'PAR: public client', () => post('PAR: public client', par, pushed.map(([n, v]): [string, string] => [n, n === 'client_id' ? 'spa' : n === 'redirect_uri' ? spaRedirect : v]))),

    // ---- UserInfo
    seed('UserInfo', 'UserInfo: GET, Bearer', () => get('UserInfo: GET, Bearer', userinfo, [['authorization', `Bearer ${s.userAccess}`]])),
    seed('UserInfo', 'UserInfo: POST, Bearer header', () => ({ seed: 'UserInfo: POST, Bearer header', method: 'POST', path: userinfo, headers: [['authorization', `Bearer ${s.userAccess}`]] })),
    seed('UserInfo', 'UserInfo: POST, token in the form', () => post('UserInfo: POST, token in the form', userinfo, [['access_token', s.userAccess]])),
    seed('UserInfo', 'UserInfo: CORS', () => get('UserInfo: CORS', userinfo, [['authorization', `Bearer ${s.userAccess}`], ['origin', 'https://app.example']])),

    // ---- registration
    seed('registration', 'registration: a code-flow client', () => jsonRequest('registration: a code-flow client', 'POST', register, {
      ...registeredCodeClient, grant_types: ['authorization_code', 'refresh_token'], scope: 'openid profile api1.read offline_access',
      token_endpoint_auth_method: 'client_secret_post', id_token_signed_response_alg: 'RS256', dpop_bound_access_tokens: false,
    }, initial)),
    seed('registration', 'registration: a machine client', () => jsonRequest('registration: a machine client', 'POST', register, {
      grant_types: ['client_credentials'], scope: 'api1.read', client_name: 'Reports',
    }, initial)),
    seed('registration', 'registration: a public native client', () => jsonRequest('registration: a public native client', 'POST', register, {
      grant_types: ['authorization_code'], redirect_uris: ['http://127.0.0.1/native/cb'], token_endpoint_auth_method: 'none', scope: 'openid',
    }, initial)),
    seed('registration', 'registration: a certificate-bound client', () => jsonRequest('registration: a certificate-bound client', 'POST', register, {
      grant_types: ['client_credentials'], scope: 'api1.read', token_endpoint_auth_method: 'tls_client_auth', tls_client_certificate_bound_access_tokens: true,
    }, initial)),
    seed('registration', 'registration: GET (RFC 7592)', async (probe) => {
      const client = await fresh(probe);
      return get('registration: GET (RFC 7592)', client.uri, [['authorization', `Bearer ${client.registrationToken}`]]);
    }),
    seed('registration', 'registration: PUT (RFC 7592)', async (probe) => {
      const client = await fresh(probe);
      return jsonRequest('registration: PUT (RFC 7592)', 'PUT', client.uri, {
        ...registeredCodeClient, client_id: client.clientId, client_name: 'Renamed', scope: 'openid profile offline_access',
      }, `Bearer ${client.registrationToken}`);
    }),
    seed('registration', 'registration: DELETE (RFC 7592)', async (probe) => {
      const client = await fresh(probe);
      return { seed: 'registration: DELETE (RFC 7592)', method: 'DELETE', path: client.uri, headers: [['authorization', `Bearer ${client.registrationToken}`]] };
    }),

    // ---- DPoP proofs beyond the token endpoint (RFC 9449 §7, §10)
    seed('DPoP', 'PAR with a DPoP proof', async () => withHeader(post('PAR with a DPoP proof', par, pushed, codeAuth), 'dpop', await proof('POST', par))),
    seed('DPoP', 'UserInfo: GET, DPoP-bound token', async () => get('UserInfo: GET, DPoP-bound token', userinfo, [
      ['authorization', `DPoP ${s.dpopUserAccess}`], ['dpop', await proof('GET', userinfo, { ath: ath(s.dpopUserAccess) })],
    ])),
    seed('DPoP', 'UserInfo: POST, DPoP-bound token', async () => ({
      seed: 'UserInfo: POST, DPoP-bound token', method: 'POST', path: userinfo,
      headers: [['authorization', `DPoP ${s.dpopUserAccess}`], ['dpop', await proof('POST', userinfo, { ath: ath(s.dpopUserAccess) })]],
    })),

    // ---- the mutual TLS certificate header (from the trusted proxy)
    seed('mutual TLS', 'token: tls_client_auth (CA-issued subject)', () => mtlsToken('token: tls_client_auth (CA-issued subject)', 'mtls-named', fx.certificates.named)),
    seed('mutual TLS', 'token: pinned certificate', () => mtlsToken('token: pinned certificate', 'mtls-pinned', fx.certificates.pinned)),
    seed('mutual TLS', "token: a stranger's certificate", () => mtlsToken("token: a stranger's certificate", 'mtls-pinned', fx.certificates.stranger)),
    seed('mutual TLS', 'UserInfo: certificate-bound token', () => get('UserInfo: certificate-bound token', userinfo, [
      ['authorization', `Bearer ${s.certificateAccess}`], [certificateHeader, fx.certificates.named],
    ])),
    seed('mutual TLS', 'introspection: certificate-bound token', () => ({
      ...post('introspection: certificate-bound token', '/connect/introspect', [['token', s.certificateAccess]], basic('api1', fx.apiSecret)),
    })),
  ];
}
