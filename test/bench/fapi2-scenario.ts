/**
 * The FAPI 2.0 code flow row (issue 37): the code redemption of a client under the FAPI 2.0
 * Security Profile, with a fresh `private_key_jwt` assertion and a fresh DPoP proof each, the
 * code bound to the proof's key; answered with a DPoP-bound JWT and an ES256 ID token. Ours makes
 * its codes the FAPI way before each round: a pushed authorization request carrying a signed
 * request object (JAR), an assertion and a DPoP proof, then the authorization endpoint with the
 * `request_uri` in a signed-in browser. node-oidc-provider, configured for FAPI 2.0
 * (`features.fapi.profile: '2.0'`, test/bench/oidc-provider.mjs), gets its codes minted in its
 * store bound to the same key, as its other code rows do. Only the redemption is timed.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { Prepared, Scenario, ScenarioContext } from './scenarios.js';
import { webRedirect, type BenchFixture } from './fixture.js';
import { Browser, formsOf } from '../support/sign-in.js';

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const b64url = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const es256 = (input: string, key: KeyObject): string => sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
const jwt = (header: object, claims: object, key: KeyObject): string => {
  const input = `${b64url(header)}.${b64url(claims)}`;
  return `${input}.${es256(input, key)}`;
};
const jti = (): string => randomBytes(16).toString('base64url');
const scope = 'openid api1.read';

/** The client's signatures: request objects, assertions (aud the issuer, SP §5.3.2.1) and DPoP proofs of one key. */
function signer(url: string, fixture: BenchFixture) {
  const { clientId, privateKey } = fixture.fapiClient;
  const dpop = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = dpop.publicKey.export({ format: 'jwk' });
  const jkt = createHash('sha256').update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })).digest('base64url');
  return {
    jkt,
    assertion: (now: number) => jwt({ alg: 'ES256', typ: 'client-authentication+jwt' }, { iss: clientId, sub: clientId, aud: url, iat: now, exp: now + 300, jti: jti() }, privateKey),
    proof: (now: number, path: string) => jwt({ typ: 'dpop+jwt', alg: 'ES256', jwk }, { jti: jti(), htm: 'POST', htu: `${url}${path}`, iat: now }, dpop.privateKey),
    requestObject: (now: number, challenge: string) => jwt({ alg: 'ES256', typ: 'oauth-authz-req+jwt' }, {
      iss: clientId, aud: url, client_id: clientId, iat: now, nbf: now, exp: now + 300,
      response_type: 'code', redirect_uri: webRedirect, scope, code_challenge: challenge, code_challenge_method: 'S256',
    }, privateKey),
  };
}
type Signer = ReturnType<typeof signer>;

const assertionType = encodeURIComponent('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Ours: PAR with JAR, an assertion and a DPoP proof, then the authorization endpoint in one of 16 signed-in browsers. */
async function pushedCodes(url: string, fixture: BenchFixture, keys: Signer, challenge: string) {
  const { clientId } = fixture.fapiClient;
  const browsers: Browser[] = [];
  for (let i = 0; i < 16; i++) {
    // Any client's sign-in gives the browser its session; the web app's needs nothing pushed.
    const browser = new Browser(url);
    const page = await browser.get(`/connect/authorize?${new URLSearchParams({ client_id: 'webapp', redirect_uri: webRedirect, response_type: 'code', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' })}`);
    if (formsOf(page.html).length > 0) await browser.submit(page, { username: fixture.user.username, password: fixture.user.password });
    browsers.push(browser);
  }
  async function one(browser: Browser): Promise<string> {
    const now = nowSeconds();
    const res = await fetch(`${url}/connect/par`, {
      method: 'POST',
      headers: { ...form, dpop: keys.proof(now, '/connect/par') },
      body: `client_assertion_type=${assertionType}&client_assertion=${keys.assertion(now)}&request=${keys.requestObject(now, challenge)}`,
    });
    const pushed = (await res.json()) as { request_uri?: string };
    if (!pushed.request_uri) throw new Error(`PAR answered ${res.status}: ${JSON.stringify(pushed)}`);
    const page = await browser.get(`/connect/authorize?${new URLSearchParams({ client_id: clientId, request_uri: pushed.request_uri })}`);
    const code = page.location?.searchParams.get('code');
    if (!code) throw new Error(`no code in the redirect (${page.status}): ${page.location ?? page.html.slice(0, 300)}`);
    return code;
  }
  return async (wanted: number): Promise<string[]> => {
    const codes: string[] = [];
    await Promise.all(browsers.map(async (browser) => {
      while (codes.length < wanted) codes.push(await one(browser));
    }));
    return codes.slice(0, wanted);
  };
}

/** node-oidc-provider: codes minted in its store for the FAPI client, bound to the proofs' key (POST /bench/codes). */
function mintedCodes(url: string, clientId: string, keys: Signer, challenge: string) {
  return async (count: number): Promise<string[]> => {
    const codes: string[] = [];
    while (codes.length < count) {
      const res = await fetch(`${url}/bench/codes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ count: Math.min(count - codes.length, 10_000), code_challenge: challenge, client_id: clientId, dpop_jkt: keys.jkt }),
      });
      if (!res.ok) throw new Error(`POST /bench/codes answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      codes.push(...((await res.json()) as { codes: string[] }).codes);
    }
    return codes;
  };
}

export const fapi2CodeRedemption: Scenario = {
  id: 'fapi2-code',
  title: 'FAPI 2.0 code flow: redemption with private_key_jwt + DPoP (fresh each), codes from PAR + JAR → DPoP JWT + ES256 ID token',
  server: 'es256',
  oidcProvider: { setup: 'es256' },
  async prepare(ctx: ScenarioContext): Promise<Prepared> {
    const { url, fixture, measured, implementation } = ctx;
    const keys = signer(url, fixture);
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const make = implementation === 'svc' ? await pushedCodes(url, fixture, keys, challenge) : mintedCodes(url, fixture.fapiClient.clientId, keys, challenge);
    // Each request takes one code, one assertion and one proof, all made before the round while the server idles.
    let pool: { body: string; proof: string }[] = [];
    let next = 0;
    let made = 0;
    let makingMs = 0;
    let ranOut = 0;
    // Half the codes' 60 s: the round that follows the pool fits in the rest with room to spare.
    const makingBudgetMs = 30_000;
    // The load generator asks for the body first, then the headers (measure.ts): the proof goes with the body's code.
    let current: { body: string; proof: string } | undefined;
    return {
      // FAPI codes live 60 s at most (SP §5.3.2.2) and ours take a PAR and an authorization
      // request each (about 6 ms of the one core): a round's pool must be made and spent within
      // the minute, so the rate is capped and a round's leftovers are dropped, never carried over.
      // The warm-up's pool covers 1.5× the cap: 3,000 leaves room for the 3,200/s a fast VM
      // redeems (a cap of 1,000 ran the 2026-11-27 night run's pools out).
      expectedRate: Math.min(measured.get('code-es256-id-token') ?? 1000, 3000),
      async beforeRound(expected) {
        const started = performance.now();
        pool = [];
        next = 0;
        // The first code made must still be alive when the round's last request goes (the
        // 2026-12-01 run lost 32 to expiry): the pool takes at most `makingBudgetMs` to make, at
        // the rate the earlier pools were made.
        const affordable = made === 0 ? expected : Math.floor((made / makingMs) * makingBudgetMs);
        const missing = Math.min(expected, affordable);
        const now = nowSeconds();
        for (const code of await make(missing)) {
          pool.push({
            body: `grant_type=authorization_code&code=${encodeURIComponent(code)}&redirect_uri=${encodeURIComponent(webRedirect)}&code_verifier=${verifier}` +
              `&client_assertion_type=${assertionType}&client_assertion=${keys.assertion(now)}`,
            proof: keys.proof(now, '/connect/token'),
          });
        }
        made += missing;
        makingMs += performance.now() - started;
      },
      spec: {
        method: 'POST',
        path: '/connect/token',
        headers: form,
        body: () => {
          current = pool[next];
          if (current === undefined) {
            ranOut++;
            // Refused before any client authentication (unsupported_grant_type) and counted so: a
            // request without its assertion would count as the client's failed authentication,
            // and the back-off it earns then refuses the next round's PAR requests (429).
            return 'grant_type=urn%3Abench%3Apool-ran-out';
          }
          next++;
          return current.body;
        },
        freshHeaders: () => ({ dpop: current?.proof ?? keys.proof(nowSeconds(), '/connect/token') }),
        success: (body) => (/"token_type":"(DPoP|dpop)"/i.test(body) && body.includes('"id_token"') ? 'DPoP token + ID token' : 'unexpected'),
      },
      note: () =>
        `${made} codes ${implementation === 'svc' ? 'made by PAR (JAR, private_key_jwt, DPoP) and 16 signed-in browsers' : 'minted in its store (POST /bench/codes)'} in ${(makingMs / 1000).toFixed(1)} s before the rounds` +
        (ranOut ? `; the pool ran out ${ranOut} times` : ', none during the load'),
    };
  },
};
