/**
 * Issue 34, "a second instance of this service as another" upstream: two instances of this
 * service on loopback. "Corp" has the person as a user and us as a confidential client whose
 * redirect URI is our `/connect/authorize/callback`; we list corp under `identityProviders`.
 * A cookie-keeping browser without JavaScript starts at our authorization endpoint, picks corp,
 * signs in on corp's own sign-in page and comes back: we create the user just in time (claims
 * from the default mapping), our ID token says `idp: "corp"`, `amr: ["external"]`, and the next
 * sign-in finds the same local user.
 *
 * Loopback issuers: `identityProviders[].issuer` takes http only on loopback
 * (`src/config/identity-providers.ts`), and the relying party allows plain http to loopback only
 * (`src/upstream/upstream-client.ts`); no address rule blocks a loopback upstream, so corp runs
 * on `http://127.0.0.1:<port>` as it is.
 */
import { decodeJwt, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, Browser, formsOf, redeemWeb, signInConfig, webRequest, type Page } from '../support/sign-in.js';
import { reservePort } from '../support/upstream-providers.js';

const carol = { subjectId: 'corp-carol', username: 'carol', password: 'carol-password-1', claims: { name: 'Carol Corp', email: 'carol@corp.example', email_verified: true } };

let ours: TestServer;
let corp: TestServer;

beforeAll(async () => {
  // Corp's address is needed in our config before corp can name our callback: reserve it.
  const corpPort = await reservePort();
  ours = await startServer(await signInConfig({
    identityProviders: [{ type: 'oidc', name: 'corp', displayName: 'Corp', issuer: `http://127.0.0.1:${corpPort}`, clientId: 'our-service', clientSecret: 'our-secret-at-corp' }],
  }));
  corp = await startServer({
    ...(await signInConfig({
      users: [{ ...carol, password: await hashPassword(carol.password, { ln: 4, r: 8, p: 1 }) }],
      identityResources: [
        { name: 'openid', claims: ['sub'] },
        { name: 'profile', description: 'Your name', claims: ['name'] },
        { name: 'email', description: 'Your email address', claims: ['email', 'email_verified'] },
      ],
      clients: [{
        clientId: 'our-service', clientName: 'Our service', clientSecrets: [{ value: hashSecret('our-secret-at-corp') }],
        allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'profile', 'email'],
        redirectUris: [`${ours.url}/connect/authorize/callback`],
      }],
    })),
    port: corpPort,
  });
}, 60_000);
afterAll(async () => {
  await ours?.close();
  await corp?.close();
});

/**
 * A browser's cookie jars, one per site. Deployed, we and corp have host names of our own; on
 * loopback only the ports differ, and both instances name their cookie `svc_session`, so one
 * jar for both would let corp's cookie overwrite ours mid-sign-in, which no deployment sees.
 */
function sites(): (url: string | URL) => Browser {
  const jars = new Map<string, Browser>();
  return (url) => {
    const { origin } = new URL(url);
    if (!jars.has(origin)) jars.set(origin, new Browser(origin));
    return jars.get(origin)!;
  };
}

/** Signs in at us through corp's own sign-in page in a fresh browser; our ID token's claims. */
async function signInThroughCorp(): Promise<JWTPayload> {
  const site = sites();
  const browser = site(ours.url);
  const flow = webRequest();
  const ourPage = await browser.get(authorizeUrl(ours, flow.params));
  const button = formsOf(ourPage.html).findIndex((f) => f.fields.step === 'upstream');
  expect(ourPage.html).toContain('>Sign in with Corp</button>');
  const toCorp = await browser.submit(ourPage, { provider: 'corp' }, button);
  expect(toCorp.status).toBe(303);
  expect(toCorp.location!.origin).toBe(corp.url);
  expect(toCorp.location!.pathname).toBe('/connect/authorize');

  const atCorp = site(corp.url);
  const corpPage = await atCorp.get(toCorp.location!);
  expect(corpPage.status).toBe(200);
  expect(corpPage.html).toContain('<h1>Sign in</h1>');
  const signIn = formsOf(corpPage.html).findIndex((f) => f.fields.step === 'sign-in');
  let back: Page = await atCorp.submit(corpPage, { username: carol.username, password: carol.password }, signIn);
  if (back.html.includes('<h1>Allow access?</h1>')) back = await atCorp.submit(back, { decision: 'approve' });
  expect(back.status).toBe(303);
  expect(`${back.location!.origin}${back.location!.pathname}`).toBe(`${ours.url}/connect/authorize/callback`);

  const atClient = await browser.get(back.location!);
  const code = atClient.location?.searchParams.get('code');
  if (atClient.status !== 303 || !code) throw new Error(`expected the code at the client, got ${atClient.status}:\n${atClient.html}`);
  const tokens = await redeemWeb(ours, code, flow.verifier);
  expect(tokens.status).toBe(200);
  return decodeJwt(tokens.body.id_token as string);
}

describe('another instance of this service as the upstream', () => {
  let subject: string;

  it('creates the user just in time with the mapped claims; our ID token names corp and says external', async () => {
    const claims = await signInThroughCorp();
    expect(claims).toMatchObject({ iss: ours.url, idp: 'corp', amr: ['external'], name: 'Carol Corp' });
    subject = claims.sub!;
    expect(subject).not.toBe(carol.subjectId); // our subject is our own
    const user = await ours.app.store.users.getBySubject(subject);
    expect(user).toMatchObject({ username: `corp:${carol.subjectId}`, email: 'carol@corp.example', disabled: false, claims: { name: 'Carol Corp' } });
    expect(user!.upstreamIdentities).toEqual([expect.objectContaining({ provider: 'corp', issuer: corp.url, subject: carol.subjectId })]);
  });

  it('finds the same local user on the next sign-in', async () => {
    expect((await signInThroughCorp()).sub).toBe(subject);
    expect((await ours.app.store.users.list()).filter((u) => u.username.startsWith('corp:'))).toHaveLength(1);
  });
});
