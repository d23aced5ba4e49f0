/**
 * Issue 34, "Sign-in through upstream identity providers", on loopback: node-oidc-provider as a
 * real OpenID Connect upstream with its own login and consent pages, a GitHub-shaped OAuth 2.0
 * server, and a bare OpenID Connect issuer whose ID tokens go wrong one way at a time. A
 * cookie-keeping browser without JavaScript walks every page; our ID token's `sub` says which
 * local user signed in.
 */
import { decodeJwt, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { createMemoryUpstreamAccounts } from '../../src/upstream/upstream-accounts.js';
import { startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, formsOf, redeemWeb, signInConfig, webRequest, type Page } from '../support/sign-in.js';
import {
  reservePort, startFakeOidc, startGithubLike, startNodeOidcProvider, walkUpstream,
  type FakeOidcUpstream, type GithubLikeUpstream, type OidcUpstream,
} from '../support/upstream-providers.js';

const upstreamAccounts = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Upstream' },
  carol: { email: 'carol@example.com', email_verified: true, name: 'Carol' },
  dave: { email: 'dave@contoso.com', email_verified: true, name: 'Dave' },
};

interface Rig {
  server: TestServer;
  corp: OidcUpstream;
  accounts: ReturnType<typeof createMemoryUpstreamAccounts>;
}

let github: GithubLikeUpstream;
let fake: FakeOidcUpstream;
let downPort: number;
const rigs: Rig[] = [];

/** Our service with the four providers, node-oidc-provider started once our callback URL is known. */
async function startRig(upstreamSignIn: UserConfig['upstreamSignIn']): Promise<Rig> {
  const corpPort = await reservePort();
  const corpIssuer = `http://127.0.0.1:${corpPort}`;
  // A local user who signed up with a password before upstream sign-in was turned on.
  const accounts = createMemoryUpstreamAccounts([{ subject: 'sub-alice', email: 'alice@example.com', emailVerified: true }]);
  // Our key for private_key_jwt towards node-oidc-provider (its public half registered there).
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const assertionKey = { ...(await exportJWK(privateKey)), alg: 'ES256', kid: 'svc-assertion-1' };
  const server = await startServer(await signInConfig({
    identityProviders: [
      { name: 'corp', displayName: 'Contoso', type: 'oidc', issuer: corpIssuer, clientId: 'svc', clientSecret: 'upstream-secret', trustEmailVerified: true },
      { name: 'corp-pkj', displayName: 'Contoso (key)', type: 'oidc', issuer: corpIssuer, clientId: 'svc-pkj', privateKeyJwt: { key: assertionKey } },
      { name: 'corp-staff', displayName: 'Contoso staff', type: 'oidc', issuer: corpIssuer, clientId: 'svc', clientSecret: 'upstream-secret', allowedEmailDomains: ['contoso.com'], domains: ['contoso.com'] },
      {
        name: 'github', displayName: 'GitHub', type: 'oauth2', clientId: 'gh-client', clientSecret: 'gh-secret', scopes: ['read:user'], timeout: 1,
        authorizationUrl: `${github.url}/login/oauth/authorize`, tokenUrl: `${github.url}/login/oauth/access_token`, userInfoUrl: `${github.url}/user`,
        claimMapping: { login: 'preferred_username', name: 'name', email: 'email' },
      },
      { name: 'fake', displayName: 'Fake IdP', type: 'oidc', issuer: fake.url, clientId: 'svc-fake', clientSecret: 'fake-secret', trustAmr: true },
      { name: 'down', displayName: 'Offline IdP', type: 'oidc', issuer: `http://127.0.0.1:${downPort}`, clientId: 'svc', clientSecret: 'x', timeout: 1 },
    ],
    ...(upstreamSignIn ? { upstreamSignIn } : {}),
  }), { upstreamAccounts: accounts });
  const corp = await startNodeOidcProvider(corpPort, `${server.url}/connect/authorize/callback`, upstreamAccounts, {
    privateKeyJwtClient: { clientId: 'svc-pkj', publicJwk: { ...(await exportJWK(publicKey)), alg: 'ES256', kid: 'svc-assertion-1', use: 'sig' } },
  });
  const rig = { server, corp, accounts };
  rigs.push(rig);
  return rig;
}

let plain: Rig;
let linking: Rig;

beforeAll(async () => {
  github = await startGithubLike();
  fake = await startFakeOidc('svc-fake');
  downPort = await reservePort(); // nothing listens there
  plain = await startRig(undefined);
  linking = await startRig({ linkByVerifiedEmail: true });
}, 60_000);
afterAll(async () => {
  for (const rig of rigs) await Promise.all([rig.server.close(), rig.corp.close()]);
  await Promise.all([github?.close(), fake?.close()]);
});

/** Clicks the provider's button on our sign-in page. */
function choose(browser: Browser, page: Page, provider: string): Promise<Page> {
  const index = formsOf(page.html).findIndex((f) => f.fields.step === 'upstream');
  if (index < 0) throw new Error(`no provider buttons on the page:\n${page.html}`);
  return browser.submit(page, { provider }, index);
}

/** Our answer after the callback: straight to the client, or through consent. Returns the code. */
async function codeFrom(browser: Browser, page: Page): Promise<string> {
  let p = page;
  if (p.html.includes('<h1>Allow access?</h1>')) p = await browser.submit(p, { decision: 'approve' });
  const code = p.location?.searchParams.get('code');
  if (p.status !== 303 || !code) throw new Error(`expected the code at the client, got ${p.status}:\n${p.html}`);
  return code;
}

/** Signs in at `provider` from our page and returns our ID token's `sub`. */
async function signInVia(rig: Rig, provider: string, login = 'alice', browser = new Browser(rig.server.url)): Promise<string> {
  return (await idTokenVia(rig, provider, login, browser)).sub!;
}

/** The ID token's claims after a sign-in at `provider`. */
async function idTokenVia(rig: Rig, provider: string, login = 'alice', browser = new Browser(rig.server.url)): Promise<JWTPayload> {
  const flow = webRequest();
  const ours = await browser.get(authorizeUrl(rig.server, flow.params));
  const atUpstream = await choose(browser, ours, provider);
  expect(atUpstream.status).toBe(303);
  const back = provider.startsWith('corp')
    ? await walkUpstream(browser, atUpstream.location!, rig.corp.url, login)
    : await browser.get((await browser.get(atUpstream.location!)).location!);
  const code = await codeFrom(browser, back);
  const tokens = await redeemWeb(rig.server, code, flow.verifier);
  expect(tokens.status).toBe(200);
  return decodeJwt(tokens.body.id_token as string);
}

/** Nobody is signed in in this browser: `prompt=none` is answered `login_required`. */
async function expectNoSession(rig: Rig, browser: Browser): Promise<void> {
  const page = await browser.get(authorizeUrl(rig.server, webRequest({ prompt: 'none' }).params));
  expect(page.location?.searchParams.get('error')).toBe('login_required');
}

function failureEvents(rig: Rig): Array<Record<string, unknown>> {
  return rig.server.logs.filter((l) => l.msg === 'user.sign_in_failed').map((l) => l.event as Record<string, unknown>);
}

describe('what our ID token says of an upstream sign-in', () => {
  it('idp names the provider; amr is ["external"], with a trusted provider\'s own amr after it', async () => {
    const corp = await idTokenVia(plain, 'corp', 'erin');
    expect(corp).toMatchObject({ idp: 'corp', amr: ['external'] });
    expect(corp.acr).toBeUndefined();
    expect(await idTokenVia(plain, 'github')).toMatchObject({ idp: 'github', amr: ['external'] });
    fake.claims.amr = ['pwd', 'mfa'];
    try {
      // `trustAmr` on: the provider's methods count, so its "mfa" is our acr "mfa".
      expect(await idTokenVia(plain, 'fake')).toMatchObject({ idp: 'fake', amr: ['external', 'pwd', 'mfa'], acr: 'mfa' });
    } finally {
      delete fake.claims.amr;
    }
  });

  it('a password sign-in has neither idp nor external', async () => {
    const flow = webRequest();
    const browser = new Browser(plain.server.url);
    const page = await browser.get(authorizeUrl(plain.server, flow.params));
    const form = formsOf(page.html).findIndex((f) => 'step' in f.fields && f.fields.step === 'sign-in');
    const code = await codeFrom(browser, await browser.submit(page, { username: alice.username, password: alice.password }, form));
    const claims = decodeJwt((await redeemWeb(plain.server, code, flow.verifier)).body.id_token as string);
    expect(claims.amr).toEqual(['pwd']);
    expect(claims.idp).toBeUndefined();
  });
});

describe('the sign-in page with identity providers', () => {
  it('shows a button per provider with its display name, beside the password form', async () => {
    const page = await new Browser(plain.server.url).get(authorizeUrl(plain.server, webRequest().params));
    expect(page.status).toBe(200);
    for (const name of ['Contoso', 'Contoso (key)', 'Contoso staff', 'GitHub', 'Fake IdP', 'Offline IdP']) expect(page.html).toContain(`>Sign in with ${name}</button>`);
    expect(page.html).toContain('name="password"');
    // The buttons POST to us and we redirect to the provider: the browser holds that to form-action.
    expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' https://web.example.com ${plain.corp.url} ${github.url} ${fake.url} http://127.0.0.1:${downPort};`);
  });

  it('acr_values=idp:<name> goes straight to that provider', async () => {
    const page = await new Browser(plain.server.url).get(authorizeUrl(plain.server, webRequest({ acr_values: 'urn:x idp:github' }).params));
    expect(page.status).toBe(303);
    expect(page.location!.href.startsWith(`${github.url}/login/oauth/authorize?`)).toBe(true);
    expect(page.location!.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('a login_hint at a provider\'s domain goes straight to it; acr_values=idp:<name> wins; another domain gets the page', async () => {
    const browser = new Browser(plain.server.url);
    const byDomain = await browser.get(authorizeUrl(plain.server, webRequest({ login_hint: 'dana@Contoso.com' }).params));
    expect(byDomain.status).toBe(303);
    expect(byDomain.location!.href.startsWith(`${plain.corp.url}/`)).toBe(true);
    expect(byDomain.location!.searchParams.get('login_hint')).toBe('dana@Contoso.com');
    const named = await browser.get(authorizeUrl(plain.server, webRequest({ login_hint: 'dana@contoso.com', acr_values: 'idp:github' }).params));
    expect(named.location!.href.startsWith(`${github.url}/login/oauth/authorize?`)).toBe(true);
    for (const login_hint of ['dana@fabrikam.com', 'dana@sub.contoso.com', 'contoso.com']) {
      const page = await browser.get(authorizeUrl(plain.server, webRequest({ login_hint }).params));
      expect(page.status, login_hint).toBe(200);
      expect(page.html).toContain('>Sign in with Contoso staff</button>');
    }
  });
});

describe('OpenID Connect upstream (node-oidc-provider, its own login form)', () => {
  it('creates the user on the first sign-in, finds the same one on the second, and keeps it when the upstream e-mail changes', async () => {
    const first = await signInVia(plain, 'corp', 'carol');
    expect(first).not.toBe('carol'); // our subject is our own
    const user = plain.accounts.users.get(first)!;
    expect(user.links).toEqual([{ provider: 'corp', issuer: plain.corp.url, subject: 'carol' }]);
    expect(user.email).toBe('carol@example.com');

    expect(await signInVia(plain, 'corp', 'carol')).toBe(first);
    plain.corp.accounts.set('carol', { ...upstreamAccounts.carol, email: 'carol.new@example.com' });
    expect(await signInVia(plain, 'corp', 'carol')).toBe(first);
    plain.corp.accounts.set('carol', upstreamAccounts.carol);
  });

  it('links to the existing user by a verified e-mail when the deployment allows it', async () => {
    expect(await signInVia(linking, 'corp', 'alice')).toBe('sub-alice');
    expect(linking.accounts.users.get('sub-alice')!.links).toEqual([{ provider: 'corp', issuer: linking.corp.url, subject: 'alice' }]);
  });

  it('authenticates to the provider with private_key_jwt instead of a secret', async () => {
    const sub = await signInVia(plain, 'corp-pkj', 'carol');
    expect(plain.accounts.users.get(sub)!.links).toEqual([{ provider: 'corp-pkj', issuer: plain.corp.url, subject: 'carol' }]);
  });

  it('does not link by e-mail when the deployment has not allowed it: a new user', async () => {
    const sub = await signInVia(plain, 'corp', 'alice');
    expect(sub).not.toBe('sub-alice');
    expect(plain.accounts.users.get('sub-alice')!.links).toEqual([]);
  });
});

describe('OAuth 2.0 upstream in GitHub\'s shape', () => {
  it('signs in with the numeric id as the upstream subject, an e-mail of null taken as none', async () => {
    const sub = await signInVia(plain, 'github');
    const user = plain.accounts.users.get(sub)!;
    expect(user.links).toEqual([{ provider: 'github', issuer: github.url, subject: '583231' }]);
    expect(user.claims).toEqual({ preferred_username: 'octocat', name: 'The Octocat' });
    expect(user.email).toBeUndefined();
    expect(await signInVia(plain, 'github')).toBe(sub);
  });
});

describe('every upstream failure ends on a page naming the provider, with no session and an event', () => {
  /** Our page after a failure: 200, the provider named, its buttons offered again. */
  function expectFailurePage(page: Page, text: string): void {
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<p class="notice" role="alert">${text}</p>`);
    expect(page.html).toContain('You can try again, or choose another way to sign in.');
    expect(formsOf(page.html).some((f) => f.fields.step === 'upstream')).toBe(true);
  }

  it('the provider is down', async () => {
    const browser = new Browser(plain.server.url);
    const page = await choose(browser, await browser.get(authorizeUrl(plain.server, webRequest().params)), 'down');
    expectFailurePage(page, 'Offline IdP did not answer. Try again in a moment.');
    await expectNoSession(plain, browser);
    expect(failureEvents(plain)).toContainEqual(expect.objectContaining({ via: 'upstream:down', reason: 'unavailable' }));
  });

  it('says so in the reader\'s language', async () => {
    const browser = new Browser(plain.server.url);
    const page = await choose(browser, await browser.get(authorizeUrl(plain.server, webRequest({ ui_locales: 'de' }).params)), 'down');
    expect(page.html).toContain('<p class="notice" role="alert">Offline IdP hat nicht geantwortet. Versuchen Sie es gleich noch einmal.</p>');
    expect(page.html).toContain('>Mit GitHub anmelden</button>');
  });

  it('the provider is slow: its timeout ends the wait', async () => {
    const browser = new Browser(plain.server.url);
    github.hang = true;
    try {
      const atGithub = await choose(browser, await browser.get(authorizeUrl(plain.server, webRequest().params)), 'github');
      const page = await browser.get((await browser.get(atGithub.location!)).location!);
      expectFailurePage(page, 'GitHub did not answer. Try again in a moment.');
    } finally {
      github.hang = false;
    }
    await expectNoSession(plain, browser);
    expect(failureEvents(plain)).toContainEqual(expect.objectContaining({ via: 'upstream:github', reason: 'unavailable' }));
  });

  it('the user cancels at the provider', async () => {
    const browser = new Browser(plain.server.url);
    const atCorp = await choose(browser, await browser.get(authorizeUrl(plain.server, webRequest().params)), 'corp');
    const page = await walkUpstream(browser, atCorp.location!, plain.corp.url, 'alice', { cancel: true });
    expectFailurePage(page, 'The sign-in with Contoso was cancelled.');
    await expectNoSession(plain, browser);
    expect(failureEvents(plain)).toContainEqual(expect.objectContaining({ via: 'upstream:corp', reason: 'cancelled' }));
  });

  it('the provider returns an error', async () => {
    const browser = new Browser(plain.server.url);
    const atGithub = await choose(browser, await browser.get(authorizeUrl(plain.server, webRequest().params)), 'github');
    const back = new URL(`${plain.server.url}/connect/authorize/callback`);
    back.searchParams.set('state', atGithub.location!.searchParams.get('state')!);
    back.searchParams.set('error', 'temporarily_unavailable');
    const page = await browser.get(back);
    expectFailurePage(page, 'GitHub refused the sign-in.');
    await expectNoSession(plain, browser);
    expect(failureEvents(plain)).toContainEqual(expect.objectContaining({ via: 'upstream:github', reason: 'refused' }));
  });

  it('a state that is not ours signs nobody in', async () => {
    const browser = new Browser(plain.server.url);
    await choose(browser, await browser.get(authorizeUrl(plain.server, webRequest().params)), 'github');
    const page = await browser.get(`${plain.server.url}/connect/authorize/callback?code=abc&state=${'x'.repeat(43)}`);
    expect(page.status).toBe(400);
    expect(page.html).toContain('<h1>');
    await expectNoSession(plain, browser);
    expect(failureEvents(plain)).toContainEqual(expect.objectContaining({ via: 'upstream:unknown', reason: 'invalid-answer' }));
  });

  it('an answer that arrives in another browser (login CSRF) signs nobody in', async () => {
    const victim = new Browser(plain.server.url);
    const attacker = new Browser(plain.server.url);
    const atGithub = await choose(attacker, await attacker.get(authorizeUrl(plain.server, webRequest().params)), 'github');
    const answer = (await attacker.get(atGithub.location!)).location!;
    await victim.get(authorizeUrl(plain.server, webRequest().params));
    const page = await victim.get(answer);
    expect(page.status).toBe(400);
    await expectNoSession(plain, victim);
  });

  for (const [fault, check] of [['wrong-iss', 'iss'], ['wrong-aud', 'aud'], ['wrong-nonce', 'nonce'], ['bad-signature', 'signature']] as const) {
    it(`an ID token with the wrong ${check}`, async () => {
      const browser = new Browser(plain.server.url);
      fake.fault = fault;
      try {
        const atFake = await choose(browser, await browser.get(authorizeUrl(plain.server, webRequest().params)), 'fake');
        const page = await browser.get((await browser.get(atFake.location!)).location!);
        expectFailurePage(page, 'The answer from Fake IdP could not be verified, so you were not signed in.');
      } finally {
        fake.fault = 'none';
      }
      await expectNoSession(plain, browser);
      expect(failureEvents(plain)).toContainEqual(expect.objectContaining({ via: 'upstream:fake', reason: 'invalid-answer' }));
    });
  }

  it('the same bare issuer with a good ID token signs in (the faults above are the only difference)', async () => {
    const sub = await signInVia(plain, 'fake');
    expect(plain.accounts.users.get(sub)!.links).toEqual([{ provider: 'fake', issuer: fake.url, subject: 'fake-user-1' }]);
  });

  it('an e-mail domain that is not allowed', async () => {
    const browser = new Browser(plain.server.url);
    const atCorp = await choose(browser, await browser.get(authorizeUrl(plain.server, webRequest().params)), 'corp-staff');
    const page = await walkUpstream(browser, atCorp.location!, plain.corp.url, 'carol');
    expectFailurePage(page, 'Your Contoso staff account may not sign in here.');
    await expectNoSession(plain, browser);
    expect(failureEvents(plain)).toContainEqual(expect.objectContaining({ via: 'upstream:corp-staff', reason: 'not-allowed' }));
    // The allowed domain passes the same provider.
    expect(await signInVia(plain, 'corp-staff', 'dave')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('no upstream code or token reaches a log line', async () => {
    const browser = new Browser(plain.server.url);
    const atGithub = await choose(browser, await browser.get(authorizeUrl(plain.server, webRequest().params)), 'github');
    const answer = (await browser.get(atGithub.location!)).location!;
    await codeFrom(browser, await browser.get(answer));
    const code = answer.searchParams.get('code')!;
    expect(plain.server.logText()).not.toContain(code);
    expect(plain.server.logText()).not.toContain('gho_');
    expect(plain.server.logText()).not.toContain(atGithub.location!.searchParams.get('state')!);
  });
});

describe('only providers', () => {
  it('hides the password form and refuses a POSTed password', async () => {
    const rig = await startRig({ hidePasswordForm: true });
    const browser = new Browser(rig.server.url);
    const page = await browser.get(authorizeUrl(rig.server, webRequest().params));
    expect(page.html).toContain('>Sign in with Contoso</button>');
    expect(page.html).not.toContain('name="password"');
    const form = formsOf(page.html).find((f) => f.fields.step === 'upstream')!;
    const posted = await browser.post(form.action, { ...form.fields, step: 'sign-in', username: 'alice', password: 'alice-password-1' });
    expect(posted.status).toBe(400);
    await expectNoSession(rig, browser);
  });
});
