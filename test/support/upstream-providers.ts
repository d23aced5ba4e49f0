/**
 * Upstream identity providers on loopback for the issue 34 tests:
 * - node-oidc-provider (the OpenID-certified server the bench runs) with its own login and
 *   consent pages (`devInteractions`), as a real OpenID Connect upstream;
 * - a small OpenID Connect issuer of our own whose ID tokens can be made wrong one way at a
 *   time (`iss`, `aud`, `nonce`, signature), which no certified server would issue;
 * - a small OAuth 2.0 server in GitHub's shape (`/login/oauth/authorize`,
 *   `/login/oauth/access_token`, `/user` with a numeric `id` and a possibly null `email`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import Provider from 'oidc-provider';
import { freePort } from './server.js';
import type { Browser, Page } from './sign-in.js';

export interface Upstream {
  readonly url: string;
  close(): Promise<void>;
}

async function listen(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

async function body(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

/** A port that is free now, for an upstream that must be named in our config before it starts. */
export const reservePort = (): Promise<number> => freePort();

export interface OidcUpstream extends Upstream {
  /** Claims of each login (the login form's `login` is the account id). Change them between sign-ins. */
  readonly accounts: Map<string, Record<string, unknown>>;
}

/** node-oidc-provider with one client (`svc`, secret `upstream-secret`) sending people back to `redirectUri`. */
export async function startNodeOidcProvider(
  port: number, redirectUri: string, accounts: Record<string, Record<string, unknown>>, more: { privateKeyJwtClient?: { clientId: string; publicJwk: JWK }; postLogoutRedirectUri?: string } = {},
): Promise<OidcUpstream> {
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const claimsOf = new Map(Object.entries(accounts));
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'svc', client_secret: 'upstream-secret', redirect_uris: [redirectUri], response_types: ['code'], grant_types: ['authorization_code'],
        ...(more.postLogoutRedirectUri ? { post_logout_redirect_uris: [more.postLogoutRedirectUri] } : {}),
      },
      // RFC 7523 §2.2: we authenticate with an assertion signed by our key, not a secret.
      ...(more.privateKeyJwtClient ? [{
        client_id: more.privateKeyJwtClient.clientId, token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: more.privateKeyJwtClient.publicJwk.alg,
        jwks: { keys: [more.privateKeyJwtClient.publicJwk] }, redirect_uris: [redirectUri], response_types: ['code'], grant_types: ['authorization_code'],
      }] : []),
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'up-1' }] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    cookies: { keys: ['upstream-cookie-key'] },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub, ...claimsOf.get(sub) }) }),
    features: { devInteractions: { enabled: true } },
  });
  provider.on('server_error', (_ctx, err) => console.error('node-oidc-provider', err));
  const server = createServer(provider.callback());
  const url = await listen(server, port);
  return { url, accounts: claimsOf, close: closer(server) };
}

/** Each form on one of node-oidc-provider's pages: its action and inputs. */
function upstreamForms(html: string): Array<{ action: string; fields: Record<string, string>; inputs: string[] }> {
  return [...html.matchAll(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)].map(([, action, inner]) => ({
    action: action!.replace(/&amp;/g, '&'),
    fields: Object.fromEntries([...inner!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"/g)].map(([, n, v]) => [n!, v!])),
    inputs: [...inner!.matchAll(/<input[^>]*name="([^"]*)"/g)].map(([, n]) => n!),
  }));
}

/**
 * Walks node-oidc-provider's own pages as a browser without JavaScript: follows redirects,
 * signs in as `login`, approves consent, until the browser leaves `upstreamUrl`. Returns the
 * first response from elsewhere (our callback's answer).
 */
export async function walkUpstream(browser: Browser, start: URL, upstreamUrl: string, login: string, options: { cancel?: boolean; confirmLogout?: boolean } = {}): Promise<Page> {
  let page = await browser.get(start);
  for (let steps = 0; steps < 20; steps++) {
    if (page.location) {
      if (!page.location.href.startsWith(upstreamUrl)) return browser.get(page.location);
      page = await browser.get(page.location);
      continue;
    }
    if (options.cancel) {
      const abort = /href="([^"]*\/abort)"/.exec(page.html)?.[1];
      if (!abort) throw new Error(`no cancel link on the upstream page:\n${page.html}`);
      page = await browser.get(new URL(abort, upstreamUrl));
      continue;
    }
    const form = upstreamForms(page.html)[0];
    if (!form) throw new Error(`no form on the upstream page (${page.status}):\n${page.html}`);
    // Its "sign out?" page (RP-Initiated Logout) has a `logout=yes` button.
    const fields = form.inputs.includes('login') ? { ...form.fields, login, password: 'any' } : options.confirmLogout ? { ...form.fields, logout: 'yes' } : form.fields;
    page = await browser.post(new URL(form.action, upstreamUrl).href, fields);
  }
  throw new Error('the upstream walk did not end');
}

/** One way to make an ID token wrong. */
export type IdTokenFault = 'none' | 'wrong-iss' | 'wrong-aud' | 'wrong-nonce' | 'bad-signature';

export interface FakeOidcUpstream extends Upstream {
  fault: IdTokenFault;
  claims: Record<string, unknown>;
}

/** A bare OpenID Connect issuer: discovery, JWKS, an authorization endpoint that approves at once, a token endpoint. */
export async function startFakeOidc(clientId: string): Promise<FakeOidcUpstream> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const stranger = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), alg: 'ES256', use: 'sig', kid: 'fake-1' };
  const codes = new Map<string, { nonce: string; challenge: string; redirectUri: string }>();
  let issuer = '';
  const upstream: FakeOidcUpstream = {
    url: '', fault: 'none', claims: { sub: 'fake-user-1', email: 'someone@example.org', email_verified: true },
    close: async () => undefined,
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['ES256'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { nonce: url.searchParams.get('nonce') ?? '', challenge: url.searchParams.get('code_challenge') ?? '', redirectUri: url.searchParams.get('redirect_uri') ?? '' });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      return res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = await body(req);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!grant || createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return json(res, 400, { error: 'invalid_grant' });
      const f = upstream.fault;
      const now = Math.floor(Date.now() / 1000);
      const idToken = await new SignJWT({ ...upstream.claims, nonce: f === 'wrong-nonce' ? 'not-the-nonce' : grant.nonce })
        .setProtectedHeader({ alg: 'ES256', kid: 'fake-1' })
        .setIssuer(f === 'wrong-iss' ? 'https://impostor.example' : issuer)
        .setAudience(f === 'wrong-aud' ? 'another-client' : clientId)
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .sign(f === 'bad-signature' ? stranger.privateKey : privateKey);
      return json(res, 200, { access_token: randomBytes(16).toString('base64url'), token_type: 'Bearer', expires_in: 300, id_token: idToken });
    }
    res.writeHead(404).end();
  });
  issuer = await listen(server);
  return Object.assign(upstream, { url: issuer, close: closer(server) });
}

export interface GithubLikeUpstream extends Upstream {
  /** The user `/user` answers with. */
  user: Record<string, unknown>;
  /** The token endpoint takes the request and never answers (a slow provider). */
  hang: boolean;
  /** Every request line the server saw, for what must (not) be sent. */
  readonly seen: string[];
}

/** GitHub's OAuth app endpoints in small: client `gh-client`, secret `gh-secret`, PKCE S256 checked. */
export async function startGithubLike(port = 0): Promise<GithubLikeUpstream> {
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const tokens = new Set<string>();
  let base = '';
  const upstream: GithubLikeUpstream = {
    url: '', hang: false, seen: [],
    user: { login: 'octocat', id: 583231, name: 'The Octocat', email: null },
    close: async () => undefined,
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, base);
    upstream.seen.push(`${req.method} ${url.pathname}`);
    if (url.pathname === '/login/oauth/authorize') {
      if (url.searchParams.get('client_id') !== 'gh-client' || url.searchParams.get('code_challenge_method') !== 'S256') return res.writeHead(400).end('bad request');
      const code = randomBytes(10).toString('hex');
      codes.set(code, { challenge: url.searchParams.get('code_challenge')!, redirectUri: url.searchParams.get('redirect_uri')! });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      return res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      if (upstream.hang) return; // never answers
      const form = await body(req);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const pkceOk = grant && createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') === grant.challenge;
      // GitHub answers errors with 200 and an `error` member; so do we.
      if (form.get('client_id') !== 'gh-client' || form.get('client_secret') !== 'gh-secret' || !pkceOk || form.get('redirect_uri') !== grant.redirectUri) {
        return json(res, 200, { error: 'bad_verification_code' });
      }
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.add(token);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user' });
    }
    if (url.pathname === '/user') {
      const auth = req.headers.authorization ?? '';
      if (!tokens.has(auth.replace(/^Bearer /i, ''))) return json(res, 401, { message: 'Bad credentials' });
      return json(res, 200, upstream.user);
    }
    res.writeHead(404).end();
  });
  base = await listen(server, port);
  return Object.assign(upstream, { url: base, close: closer(server) });
}
