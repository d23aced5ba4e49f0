/**
 * Talks to one upstream provider as a relying party, through openid-client (never a
 * hand-written JOSE check): OpenID Connect discovery, the authorization URL with PKCE (S256,
 * RFC 7636 §4.2), `state` and `nonce`, the code exchange and the ID token's validation
 * (OIDC Core §3.1.3.7: `iss`, `aud`, signature by the provider's JWKS, `nonce`, `exp`); for a
 * plain OAuth 2.0 provider (GitHub's shape) the same code flow and then its user-info URL.
 * Every call has the provider's `timeout` (openid-client's `timeout`, an AbortSignal).
 */
import * as client from 'openid-client';
import { importJWK } from 'jose';
import type { ResolvedIdentityProvider } from '../config/identity-providers.js';

/** What one authorization request must remember until the provider answers. */
export interface UpstreamChecks {
  readonly state: string;
  readonly nonce: string | undefined;
  readonly codeVerifier: string;
}

/** Who the provider says signed in, before the claim mapping. */
export interface UpstreamAnswer {
  readonly subject: string;
  /** The ID token's claims, then the user-info answer's (OIDC); the user-info answer (OAuth 2.0). */
  readonly claims: Readonly<Record<string, unknown>>;
  /** OIDC: the ID token as it came, for a later `id_token_hint` (RP-Initiated Logout §2). */
  readonly idToken?: string | undefined;
}

const loopback = (url: string): boolean => {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
};

async function clientAuthOf(p: ResolvedIdentityProvider, supported?: readonly string[]): Promise<client.ClientAuth> {
  if (p.privateKeyJwt) {
    const jwk = p.privateKeyJwt.key;
    const key = await importJWK(jwk as Parameters<typeof importJWK>[0], jwk.alg as string);
    // RFC 7523 §2.2 with the key's `kid` in the header, as providers look the key up by it.
    return client.PrivateKeyJwt({ key: key as client.CryptoKey, kid: typeof jwk.kid === 'string' ? jwk.kid : undefined });
  }
  // OIDC: client_secret_basic, the default of OIDC Core §9, unless discovery lists only
  // client_secret_post (Entra ID does); GitHub wants the secret in the form.
  const basic = p.type === 'oidc' && (supported === undefined || supported.includes('client_secret_basic') || !supported.includes('client_secret_post'));
  return basic ? client.ClientSecretBasic(p.clientSecret) : client.ClientSecretPost(p.clientSecret);
}

export interface UpstreamClient {
  /** The origin of the provider's authorization endpoint (after discovery, for `oidc`). */
  authorizationOrigin(): Promise<string>;
  authorizationUrl(callbackUrl: string, checks: UpstreamChecks, hints: { loginHint?: string | undefined; uiLocales?: string | undefined }): Promise<URL>;
  /** Reads the provider's answer at our callback URL; throws openid-client's errors, a timeout or a `StrictAnswerError`. */
  finish(callbackUrl: URL, checks: UpstreamChecks): Promise<UpstreamAnswer>;
  /** RP-Initiated Logout 1.0 §2 at the provider; `undefined` when its discovery lists no `end_session_endpoint`. */
  endSessionUrl(idTokenHint: string, postLogoutRedirectUri: string, state: string): Promise<URL | undefined>;
}

/** The user-info answer is not in the shape the config says. */
export class StrictAnswerError extends Error {
  override readonly name = 'StrictAnswerError';
}

export function createUpstreamClient(p: ResolvedIdentityProvider): UpstreamClient {
  let configuration: Promise<client.Configuration> | undefined;
  // Discovery on first use and kept; a failure (the provider down) is tried again next time, so
  // a provider that is down at start-up does not stop the service or the other providers.
  const config = (): Promise<client.Configuration> => {
    configuration ??= (async () => {
      const metadata = p.clientSecret ? { client_secret: p.clientSecret } : {};
      const insecure = loopback(p.type === 'oidc' ? p.issuer : p.authorizationUrl!);
      // OIDC Discovery §4: openid-client checks the document's `issuer` is the one configured.
      const server: client.ServerMetadata = p.type === 'oidc'
        ? (await client.discovery(new URL(p.issuer), p.clientId, metadata, undefined, { timeout: p.timeout, execute: insecure ? [client.allowInsecureRequests] : [] })).serverMetadata()
        : { issuer: p.issuer, authorization_endpoint: p.authorizationUrl, token_endpoint: p.tokenUrl };
      const c = new client.Configuration(server, p.clientId, metadata, await clientAuthOf(p, server.token_endpoint_auth_methods_supported));
      if (insecure) client.allowInsecureRequests(c);
      // OIDC Core §3.1.3.7 step 6 lets a client trust TLS instead of the ID token's signature
      // when it came from the token endpoint; we check it anyway (the provider's JWKS, cached
      // by openid-client): a proxy, a plain-http loopback or a mis-routed token endpoint then
      // cannot sign anyone in.
      if (p.type === 'oidc') client.enableNonRepudiationChecks(c);
      c.timeout = p.timeout;
      return c;
    })();
    configuration.catch(() => {
      configuration = undefined;
    });
    return configuration;
  };

  return {
    async authorizationOrigin() {
      return new URL((await config()).serverMetadata().authorization_endpoint!).origin;
    },

    async authorizationUrl(callbackUrl, checks, hints) {
      const params: Record<string, string> = {
        redirect_uri: callbackUrl,
        state: checks.state,
        code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
        code_challenge_method: 'S256',
      };
      if (p.scopes.length > 0) params.scope = p.scopes.join(' ');
      if (checks.nonce !== undefined) params.nonce = checks.nonce;
      // OIDC Core §3.1.2.1: passed on, the provider may use them.
      if (p.type === 'oidc' && hints.loginHint) params.login_hint = hints.loginHint;
      if (p.type === 'oidc' && hints.uiLocales) params.ui_locales = hints.uiLocales;
      return client.buildAuthorizationUrl(await config(), params);
    },

    async finish(callbackUrl, checks) {
      const c = await config();
      const tokens = await client.authorizationCodeGrant(c, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        ...(p.type === 'oidc' ? { expectedNonce: checks.nonce, idTokenExpected: true } : {}),
      });
      if (p.type === 'oidc') {
        const idToken = tokens.claims();
        if (!idToken) throw new StrictAnswerError('the token response has no ID token');
        // Many providers (node-oidc-provider, Entra ID) put profile and e-mail only in UserInfo;
        // its `sub` must be the ID token's (OIDC Core §5.3.2), which openid-client checks.
        const userInfo = c.serverMetadata().userinfo_endpoint
          ? await client.fetchUserInfo(c, tokens.access_token, idToken.sub)
          : {};
        return { subject: idToken.sub, claims: { ...userInfo, ...idToken }, idToken: tokens.id_token };
      }
      const response = await client.fetchProtectedResource(c, tokens.access_token, new URL(p.userInfoUrl!), 'GET', undefined, new Headers({ accept: 'application/json' }));
      if (response.status !== 200) throw new StrictAnswerError(`the user-info URL answered ${response.status}`);
      if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(response.headers.get('content-type') ?? '')) throw new StrictAnswerError('the user-info answer is not JSON');
      const body: unknown = await response.json();
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new StrictAnswerError('the user-info answer is not a JSON object');
      const claims = body as Record<string, unknown>;
      const id = claims[p.subjectClaim];
      // GitHub's `id` is a number; a string id is taken as it is. Anything else is no identity.
      const subject = typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : typeof id === 'string' && id !== '' && id.length <= 255 ? id : undefined;
      if (subject === undefined) throw new StrictAnswerError(`the user-info answer has no usable "${p.subjectClaim}"`);
      return { subject, claims };
    },

    async endSessionUrl(idTokenHint, postLogoutRedirectUri, state) {
      const c = await config();
      if (!c.serverMetadata().end_session_endpoint) return undefined;
      return client.buildEndSessionUrl(c, { id_token_hint: idTokenHint, post_logout_redirect_uri: postLogoutRedirectUri, state });
    },
  };
}
