/**
 * What each scenario sends. A scenario prepares what it needs against the running service
 * (a user's token, a reference token, device codes) and returns the request to repeat.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { BenchFixture } from './fixture.js';
import { codeLifetimeSeconds, deviceGrantType, reportsResource, webRedirect } from './fixture.js';
import { Browser, formsOf, type Page } from '../support/sign-in.js';
import type { LoadSpec } from './measure.js';
import { join } from 'node:path';
import { hashSecret } from '../../src/sdk/hash.js';
import { openSqlite } from '../../src/store/sql/sqlite.js';
// Issue 37: the FAPI 2.0 code flow row, in a file of its own.
import { fapi2CodeRedemption } from './fapi2-scenario.js';
// Issues 34 and 40: logins per second through the sign-in page, beside the password hash's cost.
import { signInPageLogins } from './login-scenario.js';

/** `store-floor-*`: bare Koa plus a row's store calls (test/bench/bare-koa-store.mjs), on SQLite or PostgreSQL. */
export type ServerKind = 'floor' | 'es256' | 'rs256' | 'memory' | 'warn' | 'postgres' | 'store-floor-sqlite' | 'store-floor-postgres';

export interface Prepared {
  /** One request, or several sent in turn on every connection (a login: the page, then the form). */
  readonly spec: LoadSpec | readonly LoadSpec[];
  readonly beforeRound?: (expectedRequests: number, expectedRate: number) => void;
  readonly expectedRate?: number;
  /**
   * Connections in flight for this row instead of `BENCH_CONNECTIONS`: a row bound by a
   * deliberately slow step (a password hash) would only measure its queue with 64.
   */
  readonly connections?: number;
  /** A line for the output after the run, e.g. how many assertions were made. */
  note?(): string | undefined;
}

export interface Scenario {
  readonly id: string;
  readonly title: string;
  readonly server: ServerKind;
  /**
   * node-oidc-provider's counterpart: which of its setups runs the same requests in the same run
   * (test/bench/oidc-provider.mjs), and the req/s issue 7 quotes for it on its machine.
   */
  readonly oidcProvider?: { readonly setup: 'es256' | 'rs256'; readonly quoted?: number };
  /** The scenario this one repeats on another server; its oidc-provider figure is that one's. */
  readonly repeats?: string;
  prepare(ctx: ScenarioContext): Promise<Prepared | { skipped: string }>;
}

export interface ScenarioContext {
  readonly url: string;
  /**
   * Which server `url` is: ours, or node-oidc-provider beside it. Most requests are the same for
   * both; what differs is how a scenario gets what it needs first (authorization codes).
   */
  readonly implementation: 'svc' | 'oidc-provider';
  readonly fixture: BenchFixture;
  /** Median req/s measured so far, by scenario id. */
  readonly measured: ReadonlyMap<string, number>;
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const tokenSuccess = (body: string): string => (body.includes('"access_token"') ? 'token' : 'unexpected');

async function postForm(url: string, params: Record<string, string>, authorization?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...form, ...(authorization ? { authorization } : {}) },
    body: new URLSearchParams(params).toString(),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: the status says enough
  }
  return { status: res.status, body };
}

async function tokenFor(url: string, params: Record<string, string>, authorization: string): Promise<string> {
  const { status, body } = await postForm(`${url}/connect/token`, params, authorization);
  if (status !== 200 || typeof body.access_token !== 'string') {
    throw new Error(`could not get a token (${params.grant_type}): ${status} ${JSON.stringify(body)}`);
  }
  return body.access_token;
}

export function clientCredentials(fixture: BenchFixture, clientId: 'm2m' | 'm2m-reference'): LoadSpec {
  const secret = clientId === 'm2m' ? fixture.secrets.m2m : fixture.secrets.reference;
  return {
    method: 'POST',
    path: '/connect/token',
    headers: { ...form, authorization: basic(clientId, secret) },
    body: 'grant_type=client_credentials&scope=api1.read',
    success: tokenSuccess,
  };
}

const b64url = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs client assertions ahead of the load: iss = sub = client, aud = issuer, unique jti, issued at `now`. */
function assertionMaker(fixture: BenchFixture, issuer: string) {
  const { clientId, alg, privateKey } = fixture.assertionKey;
  const header = b64url({ alg, typ: 'client-authentication+jwt' });
  const keyInput = alg === 'ES256' ? { key: privateKey, dsaEncoding: 'ieee-p1363' as const } : privateKey;
  return (now: number): string => {
    const input = `${header}.${b64url({ iss: clientId, sub: clientId, aud: issuer, iat: now, exp: now + 900, jti: randomBytes(16).toString('base64url') })}`;
    return `${input}.${sign('sha256', Buffer.from(input), keyInput).toString('base64url')}`;
  };
}

/**
 * Kubernetes projected service account tokens (plugins/workload-identity), shaped as the API
 * server makes them, with a fresh `jti` each: every request is a first use, as with the
 * private_key_jwt assertions, so the two rows differ only in the plugin that judges the token.
 */
function workloadTokenMaker(fixture: BenchFixture) {
  const { issuer, audience, kid, alg, privateKey } = fixture.workloadIssuer;
  const header = b64url({ alg, kid });
  const keyInput = alg === 'ES256' ? { key: privateKey, dsaEncoding: 'ieee-p1363' as const } : privateKey;
  return (now: number): string => {
    const input = `${header}.${b64url({
      aud: [audience], exp: now + 600, iat: now, iss: issuer, jti: randomBytes(16).toString('base64url'), nbf: now,
      'kubernetes.io': { namespace: 'payments', pod: { name: 'api-0', uid: 'bench' }, serviceaccount: { name: 'api', uid: 'bench' } },
      sub: 'system:serviceaccount:payments:api',
    })}`;
    return `${input}.${sign('sha256', Buffer.from(input), keyInput).toString('base64url')}`;
  };
}

/**
 * Signs DPoP proofs (RFC 9449 §4.2) for the token endpoint ahead of the load: ES256, one key (a
 * client keeps its key), a fresh jti and iat each.
 */
function dpopProofMaker(url: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const header = b64url({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicKey.export({ format: 'jwk' }) });
  const htu = `${url}/connect/token`;
  return (now: number): string => {
    const input = `${header}.${b64url({ jti: randomBytes(16).toString('base64url'), htm: 'POST', htu, iat: now })}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  };
}

/**
 * A pool of one-time values (assertions, DPoP proofs) signed before each round while the server
 * idles, sized from the expected rate, so the load generator does not sign during the load.
 *
 * Each is issued (`iat`) at the second it is expected to be sent, at the expected rate from the
 * end of the pool already signed: a real client signs just before sending, so the issue times the
 * service sees grow with the load, as here, rather than all falling in the second the pool was
 * signed. A round faster than expected sends some up to a second or two early, inside the clock
 * skew both servers allow.
 */
function signedPool(make: (issuedAt: number) => string, what: string) {
  let pool: string[] = [];
  let next = 0;
  let made = 0;
  let onTheFly = 0;
  let signingMs = 0;
  const nowSeconds = (): number => Math.floor(Date.now() / 1000);
  return {
    beforeRound(expected: number, rate: number): void {
      const started = performance.now();
      pool = pool.slice(next);
      next = 0;
      const missing = Math.max(expected - pool.length, 0);
      const start = Date.now() / 1000 + pool.length / rate;
      for (let i = 0; i < missing; i++) pool.push(make(Math.floor(start + i / rate)));
      signingMs += performance.now() - started;
      made += missing;
    },
    take(): string {
      if (next < pool.length) return pool[next++]!;
      // Never replay: sign one now (this slows the load generator, so it is reported).
      onTheFly++;
      return make(nowSeconds());
    },
    note: (): string =>
      `${made} ${what} signed in ${(signingMs / 1000).toFixed(1)} s before the rounds` +
      (onTheFly ? `; the pool ran out and ${onTheFly} more were signed during the load` : ', none during the load'),
  };
}

/**
 * client_credentials with a fresh DPoP proof each (issue 17): a DPoP-bound JWT. The proofs for
 * the warm-up are sized from the rate measured for `rateOf`.
 */
export function dpopClientCredentials(url: string, fixture: BenchFixture, measured: ReadonlyMap<string, number>, rateOf = 'cc-es256'): Prepared {
  const proofs = signedPool(dpopProofMaker(url), 'ES256 DPoP proofs');
  return {
    expectedRate: Math.min(measured.get(rateOf) ?? 3000, 6000),
    beforeRound: proofs.beforeRound,
    spec: { ...clientCredentials(fixture, 'm2m'), freshHeaders: () => ({ dpop: proofs.take() }), success: (body) => (body.includes('"token_type":"DPoP"') ? 'DPoP token' : 'unexpected') },
    note: proofs.note,
  };
}

const assertionPrefix =
  'grant_type=client_credentials&scope=api1.read' +
  '&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=';

/** Authorization codes for the web app, PKCE S256 with one verifier; every code is redeemed once at most. */
export interface CodeMaker {
  /** The token request body that redeems `code`. */
  redeem(code: string): string;
  /** `count` fresh codes. */
  make(count: number): Promise<string[]>;
  /** How the codes are made, for the note after the run. */
  readonly how: string;
  /**
   * Milliseconds a code may wait in the pool before a round: well inside its lifetime on that
   * server, since a round's leftovers open the next one. Older ones are dropped and made again.
   */
  readonly usableForMs: number;
  /** Ours only: one authorization request that each signed-in browser's cookie turns into a new code. */
  readonly authorize?: { readonly path: string; readonly cookies: ReadonlyArray<Record<string, string>> };
}

/** Two thirds of a code's lifetime: a round, its pool and the other side's round fit in the rest. */
export const usableForMs = (lifetimeSeconds: number): number => (lifetimeSeconds * 1000 * 2) / 3;

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const redemption = (verifier: string) => (code: string): string =>
  `grant_type=authorization_code&code=${encodeURIComponent(code)}&redirect_uri=${encodeURIComponent(webRedirect)}&code_verifier=${verifier}`;

/**
 * Ours: signed-in browsers. Each signs in once, then each code is one GET of the authorization
 * endpoint with its SSO session cookie (no consent asked: the client does not require it).
 * Each browser has one request in flight, as a person has: codes issued at once in one session
 * are recorded one after another (src/sessions/sign-in-sessions.ts), which would measure that queue.
 */
async function signedInBrowsers(url: string, fixture: BenchFixture, clientId: WebApp, count = 16): Promise<CodeMaker> {
  const { verifier, challenge } = pkcePair();
  const authorize = `/connect/authorize?${new URLSearchParams({
    client_id: clientId, redirect_uri: webRedirect, response_type: 'code', scope: 'openid api1.read offline_access',
    code_challenge: challenge, code_challenge_method: 'S256',
  })}`;
  const codeOf = (answer: Page): string => {
    const code = answer.location?.searchParams.get('code');
    if (!code) throw new Error(`no code in the redirect (${answer.status}): ${answer.location ?? answer.html.slice(0, 300)}`);
    return code;
  };
  // One sign-in after another: a sign-in in progress counts towards the password throttle.
  const browsers: Browser[] = [];
  for (let i = 0; i < count; i++) {
    const browser = new Browser(url);
    let page = await browser.get(authorize);
    if (formsOf(page.html).length > 0) page = await browser.submit(page, { username: fixture.user.username, password: fixture.user.password });
    codeOf(page); // the first one proves the session; it is not used
    browsers.push(browser);
  }
  return {
    redeem: redemption(verifier),
    how: `made by ${count} signed-in browsers`,
    usableForMs: usableForMs(codeLifetimeSeconds.svc),
    authorize: { path: authorize, cookies: browsers.map((browser) => ({ cookie: [...browser.cookies].map(([n, v]) => `${n}=${v}`).join('; ') })) },
    async make(wanted) {
      const codes: string[] = [];
      await Promise.all(browsers.map(async (browser) => {
        while (codes.length < wanted) codes.push(codeOf(await browser.get(authorize)));
      }));
      return codes.slice(0, wanted); // the browsers in flight at the end each add one more
    },
  };
}

/**
 * node-oidc-provider: its interaction flow needs its pages driven for every code, so the bench
 * script mints the codes in its store as that flow leaves them (POST /bench/codes,
 * test/bench/oidc-provider.mjs). Either way only the redemption is measured.
 */
function mintedInStore(url: string, clientId: WebApp): CodeMaker {
  const { verifier, challenge } = pkcePair();
  return {
    redeem: redemption(verifier),
    how: 'minted in its store (POST /bench/codes)',
    usableForMs: usableForMs(codeLifetimeSeconds.oidcProvider),
    async make(count) {
      const codes: string[] = [];
      while (codes.length < count) {
        const res = await fetch(`${url}/bench/codes`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ count: Math.min(count - codes.length, 10_000), code_challenge: challenge, client_id: clientId }),
        });
        if (!res.ok) throw new Error(`POST /bench/codes answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        codes.push(...((await res.json()) as { codes: string[] }).codes);
      }
      return codes;
    },
  };
}

const codeMaker = ({ implementation, url, fixture }: ScenarioContext, clientId: WebApp): Promise<CodeMaker> | CodeMaker =>
  implementation === 'svc' ? signedInBrowsers(url, fixture, clientId) : mintedInStore(url, clientId);

/**
 * The two web apps of both sides (fixture.ts, oidc-provider.mjs), one secret: `webapp` gets RS256
 * ID tokens (OIDC's default), `webapp-es256` ES256 ones.
 */
export type WebApp = 'webapp' | 'webapp-es256';

const webAppAuth = (fixture: BenchFixture, clientId: WebApp) => ({ ...form, authorization: basic(clientId, fixture.secrets.webapp) });

/** The row's id and title: for the RS256 web app, or for its ES256 ID token variant. */
const webAppRow = (clientId: WebApp, id: string, title: string, es256Title: string) =>
  clientId === 'webapp' ? { id, title } : { id: `${id}-es256-id-token`, title: es256Title };

/** Authorization codes are single-use and live minutes: a pool made before each round, while the server idles. */
const codeRedemption = (clientId: WebApp): Scenario => ({
  ...webAppRow(clientId, 'code', 'authorization_code redemption (PKCE) → JWT + ID token + refresh token', 'authorization_code redemption (PKCE) → JWT + ES256 ID token + refresh token'),
  server: 'es256',
  // Issue 7 quotes no figure for it: only the paired rounds of this run compare.
  oidcProvider: { setup: 'es256' },
  async prepare(ctx) {
    // The warm-up's pool covers 1.5× this rate; a pool that runs out caps the rate the next one is
    // sized from (only successes count), so the cap is above what a fast VM redeems (ES256 ID
    // tokens: 4,600/s on the 2026-11-27 night VM, whose full run the old cap of 2,500 spoiled;
    // on PostgreSQL 2026-11-28, once its reads kept their index, over 5,000, the next cap).
    return codePool(ctx.fixture, clientId, await codeMaker(ctx, clientId), Math.min(ctx.measured.get('cc-reference') ?? 2000, 8000));
  },
});

/** Redeems codes from a pool `maker` fills before each round while the server idles; none is sent twice. */
export function codePool(fixture: BenchFixture, clientId: WebApp, maker: CodeMaker, expectedRate: number): Prepared {
  let pool: Array<{ readonly code: string; readonly madeAt: number }> = [];
  let next = 0;
  let made = 0;
  let makingMs = 0;
  let onTheFly = 0;
  let dropped = 0;
  return {
    expectedRate,
    async beforeRound(expected) {
      const started = performance.now();
      // A round's leftovers open the next one, unless they have waited too long: a pool sized
      // for a rate far above the row's (the first pool's guess) would otherwise hand out codes
      // made minutes earlier, answered invalid_grant once they expire.
      const left = pool.slice(next);
      pool = left.filter((c) => c.madeAt >= started - maker.usableForMs);
      dropped += left.length - pool.length;
      next = 0;
      const missing = Math.max(expected - pool.length, 0);
      const madeAt = performance.now();
      for (const code of await maker.make(missing)) pool.push({ code, madeAt });
      made += missing;
      makingMs += performance.now() - started;
    },
    spec: {
      method: 'POST',
      path: '/connect/token',
      headers: webAppAuth(fixture, clientId),
      body: () => {
        if (next < pool.length) return maker.redeem(pool[next++]!.code);
        onTheFly++;
        return maker.redeem('pool-ran-out'); // answered invalid_grant, and counted so
      },
      success: tokenSuccess,
    },
    note: () =>
      `${made} codes ${maker.how} in ${(makingMs / 1000).toFixed(1)} s before the rounds` +
      (dropped ? ` (${dropped} left over and older than ${Math.round(maker.usableForMs / 1000)} s dropped unsent)` : '') +
      (onTheFly ? `; the pool ran out ${onTheFly} times (answered invalid_grant)` : ', none during the load'),
  };
}

/**
 * `count` refresh-token families: codes made a few at a time and redeemed at once, so none
 * expires while the rest are made (the store soak gives codes a lifetime of seconds).
 */
async function refreshFamilies(ctx: ScenarioContext, clientId: WebApp, maker: CodeMaker, count: number): Promise<string[]> {
  const { url, fixture } = ctx;
  const pool: string[] = [];
  while (pool.length < count) {
    for (const code of await maker.make(Math.min(32, count - pool.length))) {
      const { status, body } = await postForm(`${url}/connect/token`, Object.fromEntries(new URLSearchParams(maker.redeem(code))), basic(clientId, fixture.secrets.webapp));
      if (status !== 200 || typeof body.refresh_token !== 'string') throw new Error(`no refresh token: ${status} ${JSON.stringify(body)}`);
      pool.push(body.refresh_token);
    }
  }
  return pool;
}

/** Rotation over `pool`: each answer's new refresh token goes back in, the old one is never sent again. */
export function rotation(fixture: BenchFixture, clientId: WebApp, pool: string[]): Prepared {
  const families = pool.length;
  let starved = 0;
  const refreshToken = /"refresh_token":"([^"]+)"/;
  return {
    spec: {
      method: 'POST',
      path: '/connect/token',
      headers: webAppAuth(fixture, clientId),
      body: () => {
        const token = pool.shift();
        if (token === undefined) starved++;
        return `grant_type=refresh_token&refresh_token=${encodeURIComponent(token ?? 'pool-empty')}`;
      },
      success: tokenSuccess,
      onAnswer(status, body) {
        const next = status === 200 ? refreshToken.exec(body)?.[1] : undefined;
        if (next) pool.push(next);
      },
    },
    note: () => `${families} refresh token families, each token sent once${starved ? `; ${starved} requests found the pool empty` : ''}`,
  };
}

/**
 * Each refresh rotates: the answer's new refresh token goes back into the pool and the old one
 * is never sent again, so the load is a few hundred families each moving one step per request.
 */
const refreshRotation = (clientId: WebApp): Scenario => ({
  ...webAppRow(clientId, 'refresh', 'refresh_token rotation → JWT + new refresh token', 'refresh_token rotation → JWT + ES256 ID token + new refresh token'),
  server: 'es256',
  oidcProvider: { setup: 'es256' },
  async prepare(ctx) {
    const maker = await codeMaker(ctx, clientId);
    return rotation(ctx.fixture, clientId, await refreshFamilies(ctx, clientId, maker, 512));
  },
});

const onSqlite: readonly Scenario[] = [
  {
    id: 'cc-es256',
    title: 'client_credentials + Basic → JWT ES256',
    server: 'es256',
    oidcProvider: { setup: 'es256', quoted: 3500 },
    async prepare({ fixture }) {
      return { spec: clientCredentials(fixture, 'm2m') };
    },
  },
  {
    // RFC 8707: the token names one API with `resource`; node-oidc-provider's resourceIndicators
    // feature does the same (test/bench/oidc-provider.mjs). The difference to cc-es256 is the
    // cost of resolving the resource and narrowing the scope.
    id: 'cc-resource',
    title: 'client_credentials + Basic + resource → JWT ES256 for one API',
    server: 'es256',
    oidcProvider: { setup: 'es256' },
    async prepare({ fixture }) {
      return {
        spec: {
          ...clientCredentials(fixture, 'm2m'),
          body: `grant_type=client_credentials&scope=reports.read&resource=${encodeURIComponent(reportsResource)}`,
          success: (body) => (body.includes('"scope":"reports.read"') ? 'token for the API' : 'unexpected'),
        },
      };
    },
  },
  {
    id: 'cc-reference',
    title: 'client_credentials + Basic → reference token (SQLite)',
    server: 'es256',
    oidcProvider: { setup: 'es256', quoted: 6200 },
    async prepare({ fixture }) {
      return { spec: clientCredentials(fixture, 'm2m-reference') };
    },
  },
  {
    id: 'private-key-jwt',
    title: 'private_key_jwt (fresh assertion each) → reference token',
    server: 'es256',
    oidcProvider: { setup: 'es256', quoted: 3400 },
    async prepare({ url, fixture, measured }) {
      const assertions = signedPool(assertionMaker(fixture, url), `${fixture.assertionKey.alg} assertions`);
      return {
        expectedRate: Math.min(measured.get('cc-reference') ?? 3000, 6000),
        beforeRound: assertions.beforeRound,
        spec: { method: 'POST', path: '/connect/token', headers: form, body: () => assertionPrefix + assertions.take(), success: tokenSuccess },
        note: assertions.note,
      };
    },
  },
  {
    id: 'federated-credential',
    title: 'client_credentials with a federated credential (Kubernetes token, fresh jti each) → reference token',
    server: 'es256',
    async prepare({ fixture, measured }) {
      const tokens = signedPool(workloadTokenMaker(fixture), `${fixture.workloadIssuer.alg} service account tokens`);
      const prefix = `${assertionPrefix.replace('grant_type=', `client_id=${fixture.workloadIssuer.clientId}&grant_type=`)}`;
      return {
        expectedRate: Math.min(measured.get('cc-reference') ?? 3000, 6000),
        beforeRound: tokens.beforeRound,
        spec: { method: 'POST', path: '/connect/token', headers: form, body: () => prefix + tokens.take(), success: tokenSuccess },
        note: tokens.note,
      };
    },
  },
  {
    id: 'introspection',
    title: 'introspection of a reference token by an API',
    server: 'es256',
    oidcProvider: { setup: 'es256', quoted: 3900 },
    async prepare({ url, fixture }) {
      const token = await tokenFor(url, { grant_type: 'client_credentials', scope: 'api1.read' }, basic('m2m-reference', fixture.secrets.reference));
      return {
        spec: {
          method: 'POST',
          path: '/connect/introspect',
          headers: { ...form, authorization: basic('api1', fixture.secrets.api1) },
          body: `token=${encodeURIComponent(token)}`,
          success: (body) => (body.includes('"active":true') ? 'active' : 'inactive'),
        },
      };
    },
  },
  {
    id: 'introspection-jwt',
    title: 'introspection answered as a signed JWT (RFC 9701)',
    server: 'es256',
    oidcProvider: { setup: 'es256' },
    async prepare({ url, fixture }) {
      const token = await tokenFor(url, { grant_type: 'client_credentials', scope: 'api1.read' }, basic('m2m-reference', fixture.secrets.reference));
      return {
        spec: {
          method: 'POST',
          path: '/connect/introspect',
          headers: { ...form, authorization: basic('api1', fixture.secrets.api1), accept: 'application/token-introspection+jwt' },
          body: `token=${encodeURIComponent(token)}`,
          // A JWT (three dot-separated parts), not JSON.
          success: (body) => (body.split('.').length === 3 ? 'active' : 'not a JWT'),
        },
      };
    },
  },
  {
    id: 'delegation',
    title: 'delegation grant (user JWT in, JWT out)',
    server: 'es256',
    async prepare({ url, fixture }) {
      const userToken = await tokenFor(
        url,
        { grant_type: 'password', username: fixture.user.username, password: fixture.user.password, scope: 'api1.read' },
        basic('web', fixture.secrets.web),
      );
      return {
        spec: {
          method: 'POST',
          path: '/connect/token',
          headers: { ...form, authorization: basic('api1.client', fixture.secrets.delegation) },
          body: `grant_type=delegation&scope=backend.read&token=${encodeURIComponent(userToken)}`,
          success: tokenSuccess,
        },
      };
    },
  },
  {
    id: 'device-poll',
    title: 'device-code poll → authorization_pending',
    server: 'es256',
    async prepare({ url, measured }) {
      const probe = await postForm(`${url}/connect/deviceauthorization`, { client_id: 'tv', scope: 'api1.read' });
      if (probe.status !== 200 || typeof probe.body.device_code !== 'string') {
        return { skipped: `device authorization failed: ${probe.status} ${JSON.stringify(probe.body)}` };
      }
      // Each code may be polled once a second (pollingInterval 1); cycle through enough codes
      // that every code rests about three seconds between polls at the expected rate.
      const count = Math.max(3000, Math.ceil(3 * Math.min(measured.get('cc-reference') ?? 3000, 10_000)));
      const codes: string[] = [encodeURIComponent(probe.body.device_code)];
      let failed = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (codes.length + failed < count) {
            const { status, body } = await postForm(`${url}/connect/deviceauthorization`, { client_id: 'tv', scope: 'api1.read' });
            if (status === 200 && typeof body.device_code === 'string') codes.push(encodeURIComponent(body.device_code));
            else failed++;
          }
        }),
      );
      const createdIn = ((performance.now() - started) / 1000).toFixed(1);
      let next = 0;
      return {
        spec: {
          method: 'POST',
          path: '/connect/token',
          headers: form,
          body: () => `grant_type=${encodeURIComponent(deviceGrantType)}&client_id=tv&device_code=${codes[next++ % codes.length]}`,
          success: () => 'unexpected success',
        },
        note: () =>
          `polled ${codes.length} device codes in turn (created in ${createdIn} s${failed ? `, ${failed} creations failed` : ''}); ` +
          `each code polled every ~${(codes.length / Math.max(measured.get('device-poll') ?? 1, 1)).toFixed(1)} s`,
      };
    },
  },
  codeRedemption('webapp'),
  refreshRotation('webapp'),
  // The same with ES256 ID tokens on both sides: what the RSA signature costs these rows.
  codeRedemption('webapp-es256'),
  refreshRotation('webapp-es256'),
  {
    id: 'cc-dpop',
    title: 'client_credentials + Basic + DPoP proof (fresh each) → DPoP-bound JWT ES256',
    server: 'es256',
    // Issue 7 quotes no DPoP figure: only the paired rounds of this run compare.
    oidcProvider: { setup: 'es256' },
    async prepare({ url, fixture, measured }) {
      return dpopClientCredentials(url, fixture, measured);
    },
  },
  {
    id: 'cc-rs256',
    title: 'client_credentials + Basic → JWT RS256',
    server: 'rs256',
    oidcProvider: { setup: 'rs256', quoted: 1560 },
    async prepare({ fixture }) {
      return { spec: clientCredentials(fixture, 'm2m') };
    },
  },
];

/**
 * The store-bound scenarios again on the memory store: node-oidc-provider's figures are with its
 * default in-memory adapter, so these rows compare like with like; the gap to the SQLite rows is
 * the cost of a durable write per request.
 */
const onMemory = ([
  'cc-es256', 'cc-reference', 'private-key-jwt', 'cc-dpop', 'code', 'refresh', 'code-es256-id-token', 'refresh-es256-id-token',
] as const).map((id): Scenario => {
  const base = onSqlite.find((s) => s.id === id)!;
  return { ...base, id: `${id}-memory`, title: base.title.replace(' (SQLite)', '').concat(' — memory store'), server: 'memory', repeats: id };
});

/**
 * The ES256 token row with a client from the database (issue 19) instead of the config file:
 * added to the running server's SQLite file as `svc clients add` does, then used once the
 * server's refresh picked it up. The request path reads the same in-memory map either way.
 */
const fromDatabase: Scenario = (() => {
  const base = onSqlite.find((s) => s.id === 'cc-es256')!;
  // No node-oidc-provider counterpart: the comparison that matters is with the cc-es256 row.
  const { oidcProvider: _counterpart, ...ours } = base;
  return {
    ...ours,
    id: 'cc-es256-database',
    title: `${base.title} — client from the database`,
    async prepare({ url, fixture }) {
      const store = openSqlite(join(fixture.dir, 'es256', 'svc.db'));
      const secret = randomBytes(18).toString('base64url');
      try {
        const now = Date.now();
        if (!(await store.clientRecords.get('client', 'm2m-db'))) {
          await store.clientRecords.add({
            kind: 'client', id: 'm2m-db', definition: { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }, disabled: false, createdAt: now,
            secrets: [{ id: 'bench', type: 'SharedSecret', value: hashSecret(secret), description: undefined, createdAt: now, expiresAt: undefined }],
          });
        } else {
          await store.clientRecords.removeSecret('client', 'm2m-db', 'bench');
          await store.clientRecords.addSecret('client', 'm2m-db', { id: 'bench', type: 'SharedSecret', value: hashSecret(secret), description: undefined, createdAt: now, expiresAt: undefined });
        }
      } finally {
        await store.close();
      }
      const authorization = basic('m2m-db', secret);
      // The default refresh interval is 5 s. Waited out rather than polled: each refused poll
      // would count towards the failed-authentication throttle of this client and address.
      await new Promise((r) => setTimeout(r, 6000));
      const probe = await postForm(`${url}/connect/token`, { grant_type: 'client_credentials' }, authorization);
      if (probe.status !== 200) throw new Error(`the database client was not picked up within 6 s: ${probe.status} ${JSON.stringify(probe.body)}`);
      return { spec: { ...clientCredentials(fixture, 'm2m'), headers: { ...form, authorization } } };
    },
  };
})();

/** The ES256 token row again with `logLevel: "warn"`: what logging at the default `info` costs. */
const atWarn: Scenario = (() => {
  const base = onSqlite.find((s) => s.id === 'cc-es256')!;
  return { ...base, id: 'cc-es256-warn', title: `${base.title} — logLevel "warn"`, server: 'warn', repeats: 'cc-es256' };
})();

/**
 * The store-bound scenarios on PostgreSQL (one node): measured beside the PostgreSQL ceiling
 * (bare Koa + the same insert, test/bench/bare-koa-pg.mjs) rather than node-oidc-provider,
 * whose figures are in-memory.
 */
const onPostgres = ([
  'cc-reference', 'introspection', 'private-key-jwt',
  // Issue 40: each durable row beside its store floor on PostgreSQL too (test/bench/store-floor-scenarios.ts).
  'code', 'refresh', 'code-es256-id-token', 'refresh-es256-id-token', 'cc-dpop',
] as const).map((id): Scenario => {
  const { oidcProvider: _paired, ...base } = onSqlite.find((s) => s.id === id)!;
  return { ...base, id: `${id}-pg`, title: `${base.title.replace(' (SQLite)', '')} — PostgreSQL`, server: 'postgres', repeats: id };
});

export const scenarios: readonly Scenario[] = [...onSqlite, fapi2CodeRedemption, signInPageLogins, fromDatabase, ...onMemory, atWarn, ...onPostgres];

/** The floor: the same form POST to bare Koa. */
export const floorScenario: Scenario = {
  id: 'floor',
  title: 'bare Koa + router + body parser (floor)',
  server: 'floor',
  async prepare({ fixture }) {
    return { spec: { ...clientCredentials(fixture, 'm2m'), success: tokenSuccess } };
  },
};

/** The PostgreSQL ceiling: the reference-token request to bare Koa + one prepared insert. */
export const postgresCeilingScenario: Scenario = {
  id: 'pg-ceiling',
  title: 'bare Koa + router + body parser + one PostgreSQL insert (PostgreSQL ceiling)',
  server: 'floor',
  async prepare({ fixture }) {
    return { spec: clientCredentials(fixture, 'm2m-reference') };
  },
};

/**
 * The store soak's mix (`BENCH_ONLY=soak-store`, test/bench/store-soak.ts): what leaves rows
 * behind, at full rate. Every connection sends, in turn, a client_credentials request for a
 * reference token, a refresh-token rotation (the spent token stays until it expires) and an
 * authorization request by a signed-in browser (a new code, left to expire unredeemed), one
 * browser after another.
 */
export async function storeSoakMix(ctx: ScenarioContext): Promise<{ specs: LoadSpec[]; note: () => string | undefined }> {
  const clientId: WebApp = 'webapp-es256';
  const maker = await signedInBrowsers(ctx.url, ctx.fixture, clientId, 8);
  // Fewer families than the refresh row: each is rotated well within the soak's short lifetimes.
  const refresh = rotation(ctx.fixture, clientId, await refreshFamilies(ctx, clientId, maker, 128));
  const reference = clientCredentials(ctx.fixture, 'm2m-reference');
  const specs = maker.authorize!.cookies.flatMap((cookie): LoadSpec[] => [
    reference,
    ...specsOf(refresh.spec),
    { method: 'GET', path: maker.authorize!.path, headers: cookie, success: () => 'unexpected' },
  ]);
  return { specs, note: () => refresh.note?.() };
}

const specsOf = (spec: LoadSpec | readonly LoadSpec[]): LoadSpec[] => (Array.isArray(spec) ? [...spec] : [spec as LoadSpec]);

/** The soak's mix: every connection sends these in turn. */
export async function soakMix(ctx: ScenarioContext): Promise<LoadSpec[]> {
  const specs: LoadSpec[] = [];
  for (const id of ['cc-es256', 'cc-reference', 'introspection', 'delegation']) {
    const prepared = await scenarios.find((s) => s.id === id)!.prepare(ctx);
    if ('spec' in prepared) specs.push(...specsOf(prepared.spec));
  }
  return specs;
}
