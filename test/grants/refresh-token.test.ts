/** The refresh_token grant (RFC 6749 §6), called with a fake refresh token service. */
import { describe, expect, it } from 'vitest';
import { createRefreshTokenGrant } from '../../src/grants/refresh-token.js';
import { checkConfig } from '../../src/config/load.js';
import { InvalidGrant, InvalidScope } from '../../src/oauth/errors.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import type { RedeemedRefreshToken, RefreshTokenService } from '../../src/oauth/refresh-tokens.js';
import { grantContext, settle } from '../fixtures/grant-plugins/grant-context.js';
import { createResourceCatalog } from '../../src/oauth/resources.js';

const config = checkConfig(
  { apiScopes: [{ name: 'a' }, { name: 'b' }], clients: [{ clientId: 'web', requireClientSecret: false, allowedGrantTypes: ['refresh_token'], allowedScopes: ['a', 'b'], allowOfflineAccess: true }] },
  process.cwd(),
);
const client = config.clients[0]!;

const redeemed: RedeemedRefreshToken = {
  subject: { kind: 'user', id: 'alice', authTime: 1_800_000_000 }, familyId: 'fam-1', scopes: ['a', 'b', 'offline_access'], authTime: 1_800_000_000,
  claims: { act: { client_id: 'web' } }, grantType: 'password', audience: undefined,
};

function setup(redeem: RefreshTokenService['redeem']) {
  const presented: string[] = [];
  const requested: Array<readonly string[] | undefined> = [];
  const grant = createRefreshTokenGrant({
    refreshTokens: {
      prepare: async () => ({ handle: 'unused', records: [] }),
      continueFamily: (r, success) => ({ ...success, sessionId: r.familyId }),
      refuseSpent: async () => new InvalidGrant('The refresh token is invalid.'),
      redeem: async (handle, c, scopes) => (presented.push(handle), requested.push(scopes), redeem(handle, c, scopes)),
    },
  });
  const run = async (raw: Record<string, string>) => {
    const ctx = grantContext(client, 'refresh_token', raw, []);
    await settle(grant, ctx);
    return ctx.result;
  };
  return { presented, requested, run };
}

describe('refresh_token grant', () => {
  it('continues the family for the same subject, auth_time, claims and scopes', async () => {
    const { run, presented } = setup(async () => redeemed);
    expect(await run({ refresh_token: 'rt' })).toEqual({
      subject: { kind: 'user', id: 'alice', authTime: 1_800_000_000 }, scopes: ['a', 'b', 'offline_access'],
      claims: { act: { client_id: 'web' } }, sessionId: 'fam-1', consumes: 'rt',
    });
    expect(presented).toEqual(['rt']);
  });

  it('grants a narrower scope', async () => {
    expect(await setup(async () => redeemed).run({ refresh_token: 'rt', scope: 'a offline_access' })).toMatchObject({ scopes: ['a', 'offline_access'] });
  });

  it('answers the service’s refusal when another request spent the token first', async () => {
    const { spent } = createRefreshTokenGrant({
      refreshTokens: {
        prepare: async () => ({ handle: 'unused', records: [] }),
        continueFamily: (r, success) => ({ ...success, sessionId: r.familyId }),
        redeem: async () => redeemed,
        refuseSpent: async (handle, c) => new InvalidGrant(`refused ${handle} for ${c.clientId}`),
      },
    });
    expect(await spent!('rt', grantContext(client, 'refresh_token', {}, []).request)).toMatchObject({ code: 'invalid_grant', description: 'refused rt for web' });
  });

  it('hands the requested scope to the service, which refuses a wider one before using the token up', async () => {
    const { run, requested } = setup(async () => {
      throw new InvalidScope('A requested scope was not granted originally.');
    });
    expect(await run({ refresh_token: 'rt', scope: 'a b' })).toEqual({
      error: 'invalid_scope', description: 'A requested scope was not granted originally.',
    });
    expect(requested).toEqual([['a', 'b']]);
  });

  it('answers invalid_request without a refresh_token', async () => {
    const { run, presented } = setup(async () => redeemed);
    expect(await run({})).toEqual({ error: 'invalid_request', description: 'The refresh_token parameter is required.' });
    expect(presented).toEqual([]);
  });

  it('passes on the service’s invalid_grant as its result', async () => {
    const result = await setup(async () => { throw new InvalidGrant('The refresh token has expired.'); }).run({ refresh_token: 'rt' });
    expect(result).toEqual({ error: 'invalid_grant', description: 'The refresh token has expired.' });
  });

  it('lets other failures (a store outage) propagate', async () => {
    await expect(setup(async () => { throw new StoreUnavailableError('down'); }).run({ refresh_token: 'rt' })).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('refresh_token grant: a public client refresh token bound to its client certificate (RFC 8705 §4)', () => {
  const bound: RedeemedRefreshToken = { ...redeemed, x5t: 'partner-thumbprint' };
  const refused = { error: 'invalid_grant', description: 'The refresh token is bound to a TLS client certificate this request does not present.' };
  const grant = createRefreshTokenGrant({
    refreshTokens: {
      prepare: async () => ({ handle: 'unused', records: [] }),
      continueFamily: (r, success) => ({ ...success, sessionId: r.familyId }),
      refuseSpent: async () => new InvalidGrant('The refresh token is invalid.'),
      redeem: async () => bound,
    },
  });
  const run = async (certificateThumbprint: string | undefined) => {
    const ctx = grantContext(client, 'refresh_token', { refresh_token: 'rt' }, [], { certificateThumbprint });
    await settle(grant, ctx);
    return ctx.result;
  };

  it('refreshes over a connection with the same certificate', async () => {
    expect(await run('partner-thumbprint')).toMatchObject({ sessionId: 'fam-1', consumes: 'rt' });
  });

  it('refuses another certificate and no certificate with invalid_grant', async () => {
    expect(await run('stranger-thumbprint')).toEqual(refused);
    expect(await run(undefined)).toEqual(refused);
  });
});

describe('refresh_token grant with resource indicators (RFC 8707 §2.2)', () => {
  const billing = 'https://billing.example/';
  const reports = 'https://reports.example/';
  const resources = createResourceCatalog({
    apiResources: checkConfig({
      apiScopes: [{ name: 'a' }, { name: 'b' }],
      apiResources: [{ name: 'billing', uri: billing, scopes: ['a'] }, { name: 'reports', uri: reports, scopes: ['b'] }],
    }, process.cwd()).apiResources,
    acceptNames: false,
  });
  const run = async (family: string[] | undefined, asked: string[]) => {
    const grant = createRefreshTokenGrant({
      resources,
      refreshTokens: {
        prepare: async () => ({ handle: 'unused', records: [] }),
        continueFamily: (r, success) => ({ ...success, sessionId: r.familyId }),
        refuseSpent: async () => new InvalidGrant('The refresh token is invalid.'),
        redeem: async () => ({ ...redeemed, audience: family }),
      },
    });
    const ctx = grantContext(client, 'refresh_token', { refresh_token: 'rt' }, [], { resources: asked });
    await settle(grant, ctx);
    return ctx.result;
  };

  it('gives a token for one of the family\'s APIs, or all of them when none is named', async () => {
    expect(await run([billing, reports], [reports])).toMatchObject({ audience: [reports], sessionId: 'fam-1' });
    expect(await run([billing, reports], [])).toMatchObject({ audience: [billing, reports] });
  });

  it('refuses an API outside the family with invalid_target, never widening', async () => {
    expect(await run([billing], [reports])).toEqual({ error: 'invalid_target', description: 'A requested resource was not part of the grant.' });
  });

  it('leaves a family without APIs to the host: no audience of its own', async () => {
    expect(await run(undefined, [reports])).not.toHaveProperty('audience');
  });
});
