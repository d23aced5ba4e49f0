/**
 * Upstream sign-in with the accounts kept where the service keeps its users (issue 34, "Account
 * linking"): the first sign-in through a GitHub-shaped provider creates a user in the user store
 * (claims from the mapping, the identity linked), the second finds the same user, our ID token
 * carries the stored claims, and a user an operator disabled is refused at the provider's door
 * too, on a page naming the provider, with no new account made in its place.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, Browser, formsOf, redeemWeb, signInConfig, webRequest } from '../support/sign-in.js';
import { startGithubLike, type GithubLikeUpstream } from '../support/upstream-providers.js';

let github: GithubLikeUpstream;
let server: TestServer;

beforeAll(async () => {
  github = await startGithubLike();
  server = await startServer(await signInConfig({
    identityProviders: [{
      name: 'github', displayName: 'GitHub', type: 'oauth2', clientId: 'gh-client', clientSecret: 'gh-secret', scopes: ['read:user'],
      authorizationUrl: `${github.url}/login/oauth/authorize`, tokenUrl: `${github.url}/login/oauth/access_token`, userInfoUrl: `${github.url}/user`,
      claimMapping: { login: 'preferred_username', name: 'name', email: 'email' },
    }],
  }));
});
afterAll(async () => {
  await server?.close();
  await github?.close();
});

/** Signs in through GitHub from our page; the page we end on, and our ID token when there is one. */
async function viaGithub(): Promise<{ status: number; html: string; idToken?: string }> {
  const browser = new Browser(server.url);
  const flow = webRequest();
  const ours = await browser.get(authorizeUrl(server, flow.params));
  const index = formsOf(ours.html).findIndex((f) => f.fields.step === 'upstream');
  const atGithub = await browser.submit(ours, { provider: 'github' }, index);
  const back = await browser.get((await browser.get(atGithub.location!)).location!);
  const code = back.location?.searchParams.get('code');
  if (!code) return { status: back.status, html: back.html };
  const tokens = await redeemWeb(server, code, flow.verifier);
  expect(tokens.status).toBe(200);
  return { status: back.status, html: back.html, idToken: tokens.body.id_token as string };
}

describe('upstream sign-in with the accounts in the user store', () => {
  let subject: string;

  it('creates a user on the first sign-in, with the mapped claims and the identity linked', async () => {
    const { idToken } = await viaGithub();
    const claims = decodeJwt(idToken!);
    subject = claims.sub!;
    // The stored claims reach our ID token (scope profile releases `name`).
    expect(claims.name).toBe('The Octocat');
    const user = await server.app.store.users.getBySubject(subject);
    expect(user).toMatchObject({ username: 'github:583231', disabled: false, claims: { preferred_username: 'octocat', name: 'The Octocat' } });
    expect(user!.upstreamIdentities).toEqual([expect.objectContaining({ provider: 'github', subject: '583231' })]);
  });

  it('finds the same user on the second sign-in', async () => {
    expect(decodeJwt((await viaGithub()).idToken!).sub).toBe(subject);
    expect((await server.app.store.users.list()).filter((u) => u.username.startsWith('github:'))).toHaveLength(1);
  });

  it('refuses a linked user an operator disabled, naming the provider, and makes no new account', async () => {
    await server.app.store.users.update(subject, { disabled: true }, Date.now());
    const page = await viaGithub();
    expect(page.idToken).toBeUndefined();
    expect(page.html).toContain('GitHub');
    expect((await server.app.store.users.list()).filter((u) => u.username.startsWith('github:'))).toHaveLength(1);
  });
});
