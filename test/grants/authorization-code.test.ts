/**
 * The authorization_code grant on the plugin contract: a refusal is a thrown OAuthError, a
 * success names a user subject with its auth_time, the code is spent by the host (`consumes`),
 * and `spent` answers with an OAuthError after revoking the first redemption's tokens.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createAuthorizationCodeGrant } from '../../src/grants/authorization-code.js';
import { createAuthorizationCodes } from '../../src/authorize/authorization-codes.js';
import { checkConfig } from '../../src/config/load.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { InvalidGrant, InvalidRequest } from '../../src/sdk/errors.js';
import { grantContext, recordingLogger } from '../fixtures/grant-plugins/grant-context.js';
import { createResourceCatalog } from '../../src/oauth/resources.js';
import { familyOfSpentGrant } from '../../src/oauth/grant-family.js';

const config = checkConfig(
  {
    identityResources: [{ name: 'openid', claims: ['sub'] }],
    clients: [
      { clientId: 'web', requireClientSecret: false, allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://web.example/cb'] },
      { clientId: 'other', requireClientSecret: false, allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://other.example/cb'] },
    ],
  },
  process.cwd(),
);
const [web, other] = config.clients as [typeof config.clients[0], typeof config.clients[0]];
const verifier = 'v'.repeat(43);
const challenge = createHash('sha256').update(verifier).digest('base64url');

async function setup() {
  const clock = { now: () => 1_900_000_000_000 };
  const store = createMemoryStore(clock);
  const { code, family } = await createAuthorizationCodes({ store, clock }).issue({
    clientId: 'web', subject: 'alice', lifetimeSeconds: 300,
    grant: { redirectUri: 'https://web.example/cb', codeChallenge: challenge, scopes: ['openid'], nonce: 'n-1', sid: 'sid-1', authTime: 1_899_999_000 },
  });
  const grant = createAuthorizationCodeGrant({ store, clock, logger: recordingLogger() });
  return { store, clock, code, family, grant };
}

describe('authorization_code grant', () => {
  it('answers a good code with a user subject, its auth_time, the ID token members, and the code to spend', async () => {
    const { code, family, grant } = await setup();
    const ctx = grantContext(web, 'authorization_code', { code, redirect_uri: 'https://web.example/cb', code_verifier: verifier });
    await grant.validate(ctx);
    expect(ctx.result).toEqual({
      subject: { kind: 'user', id: 'alice', authTime: 1_899_999_000 },
      scopes: ['openid'],
      consumes: code,
      consumesFamily: family,
      idToken: { nonce: 'n-1', sid: 'sid-1' },
    });
  });

  it.each([
    ['no code', { code: undefined, redirect_uri: 'https://web.example/cb', code_verifier: verifier }, new InvalidRequest('The code parameter is required.')],
    ['an unknown code', { code: 'nope', redirect_uri: 'https://web.example/cb', code_verifier: verifier }, new InvalidGrant('The authorization code is invalid or expired.')],
    ['no redirect_uri', { code_verifier: verifier }, new InvalidRequest('The redirect_uri parameter is required.')],
    ['another redirect_uri', { redirect_uri: 'https://web.example/other', code_verifier: verifier }, new InvalidGrant('The redirect_uri does not match the authorization request.')],
    ['no code_verifier', { redirect_uri: 'https://web.example/cb' }, new InvalidRequest('The code_verifier parameter is required.')],
    ['a wrong code_verifier', { redirect_uri: 'https://web.example/cb', code_verifier: 'w'.repeat(43) }, new InvalidGrant('The code_verifier does not match the code_challenge.')],
  ])('refuses %s by throwing the OAuth error', async (_case, raw: Record<string, string | undefined>, expected) => {
    const { code, grant } = await setup();
    const params = Object.fromEntries(Object.entries({ code, ...raw }).filter((e): e is [string, string] => e[1] !== undefined));
    const ctx = grantContext(web, 'authorization_code', params);
    const err = await (async () => grant.validate(ctx))().then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ code: expected.code, description: expected.description });
    expect(ctx.result).toBeUndefined();
  });

  it("refuses another client's code", async () => {
    const { code, grant } = await setup();
    const ctx = grantContext(other, 'authorization_code', { code, redirect_uri: 'https://web.example/cb', code_verifier: verifier });
    await expect(grant.validate(ctx)).rejects.toMatchObject({ code: 'invalid_grant', description: 'The authorization code is invalid or expired.' });
  });

  it('a code spent first elsewhere: spent() answers an OAuthError, and a later redemption is refused too', async () => {
    const { code, grant, store, clock } = await setup();
    const request = grantContext(web, 'authorization_code', { code }).request;
    await store.consume(code, clock.now());
    await expect(grant.spent!(code, request)).resolves.toMatchObject({ code: 'invalid_grant', description: 'The authorization code is invalid or expired.' });
    const ctx = grantContext(web, 'authorization_code', { code, redirect_uri: 'https://web.example/cb', code_verifier: verifier });
    await expect(grant.validate(ctx)).rejects.toMatchObject({ code: 'invalid_grant' });
  });
});

// Issue 40: the node that issued a code chose its family's format (plain before the contract or
// on the previous release, time-ordered after); the grant reads it from the code's record.
describe.each([['plain', false], ['time-ordered', true]])('authorization_code grant with a %s family in the code record', (_format, timeOrdered) => {
  it('hands the family on to the tokens, and a second redemption revokes that family', async () => {
    const clock = { now: () => 1_900_000_000_000 };
    const store = createMemoryStore(clock);
    const { code, family } = await createAuthorizationCodes({ store, clock, families: { timeOrdered } }).issue({
      clientId: 'web', subject: 'alice', lifetimeSeconds: 300,
      grant: { redirectUri: 'https://web.example/cb', codeChallenge: challenge, scopes: ['openid'], nonce: undefined, sid: 'sid-1', authTime: 1_899_999_000 },
    });
    expect(family).toBe(familyOfSpentGrant(code, timeOrdered));
    const grant = createAuthorizationCodeGrant({ store, clock, logger: recordingLogger() });
    const params = { code, redirect_uri: 'https://web.example/cb', code_verifier: verifier };
    const first = grantContext(web, 'authorization_code', params);
    await grant.validate(first);
    expect(first.result).toMatchObject({ consumes: code, consumesFamily: family });
    await store.commit({
      consume: { key: code, now: clock.now() },
      add: [{ key: 'issued', type: 'reference_token', clientId: 'web', subjectId: 'alice', sessionId: family, createdAt: clock.now(), expiresAt: clock.now() + 60_000, consumedAt: undefined, data: '{}' }],
    });
    await expect(grant.validate(grantContext(web, 'authorization_code', params))).rejects.toMatchObject({ code: 'invalid_grant' });
    expect(await store.get('issued')).toBeUndefined();
  });
});

describe('authorization_code grant with resource indicators (RFC 8707 §2.2)', () => {
  const billing = 'https://billing.example/';
  const reports = 'https://reports.example/';
  const resources = createResourceCatalog({
    apiResources: checkConfig({
      apiScopes: [{ name: 'billing.read' }, { name: 'reports.read' }],
      apiResources: [{ name: 'billing', uri: billing, scopes: ['billing.read'] }, { name: 'reports', uri: reports, scopes: ['reports.read'] }],
    }, process.cwd()).apiResources,
    acceptNames: false,
  });
  async function codeFor(granted: string[] | undefined) {
    const clock = { now: () => 1_900_000_000_000 };
    const store = createMemoryStore(clock);
    const { code } = await createAuthorizationCodes({ store, clock }).issue({
      clientId: 'web', subject: 'alice', lifetimeSeconds: 300,
      grant: { redirectUri: 'https://web.example/cb', codeChallenge: challenge, scopes: ['billing.read', 'reports.read'], nonce: undefined, sid: 'sid-1', authTime: 1_899_999_000, ...(granted ? { resources: granted } : {}) },
    });
    const grant = createAuthorizationCodeGrant({ store, clock, logger: recordingLogger(), resources });
    const redeem = async (asked: string[]) => {
      const ctx = grantContext(web, 'authorization_code', { code, redirect_uri: 'https://web.example/cb', code_verifier: verifier }, [], { resources: asked });
      await grant.validate(ctx);
      return ctx.result;
    };
    return redeem;
  }

  it('answers with the code\'s APIs, or those asked for among them; the refresh token keeps them all', async () => {
    const redeem = await codeFor([billing, reports]);
    expect(await redeem([])).toMatchObject({ audience: [billing, reports], grantedAudience: [billing, reports] });
    expect(await redeem([reports])).toMatchObject({ audience: [reports], grantedAudience: [billing, reports] });
  });

  it('refuses an API outside the code with invalid_target', async () => {
    const redeem = await codeFor([billing]);
    await expect(redeem([reports])).rejects.toMatchObject({ code: 'invalid_target', description: 'A requested resource was not part of the grant.' });
  });

  it('leaves a code issued without resource to the host: no audience of its own', async () => {
    const redeem = await codeFor(undefined);
    const result = await redeem([reports]);
    expect(result).not.toHaveProperty('audience');
    expect(result).not.toHaveProperty('grantedAudience');
  });
});
