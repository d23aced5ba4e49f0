/** plugins/delegation's grant, called with plain deps (spec §4.1 "Delegation grant"). */
import { describe, expect, it } from 'vitest';
import { createDelegationGrant } from '../../../plugins/delegation/delegation-grant.js';
import delegationPlugin from '../../../plugins/delegation/index.js';
import { checkConfig } from '../../../src/config/load.js';
import { accessToken, fakeTokenValidator, grantContext, settle, recordingLogger } from '../../fixtures/grant-plugins/grant-context.js';

const config = checkConfig(
  {
    apiScopes: [{ name: 'api1.read' }, { name: 'backend.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'] }, { name: 'backend', scopes: ['backend.read'] }],
    clients: [{
      clientId: 'api1.client', requireClientSecret: false, allowedGrantTypes: ['delegation'], allowedScopes: ['backend.read'],
      allowedSubjectTokenAudiences: ['api1'],
    }],
  },
  process.cwd(),
);
const client = config.clients[0]!;

const userToken = accessToken({ sub: 'alice', client_id: 'web', auth_time: 1_899_999_000 });
const delegatedToken = accessToken({ sub: 'alice', client_id: 'api1.client', auth_time: 1_899_999_000, act: { client_id: 'web' } });
const clientToken = accessToken({ sub: 'm2m', client_id: 'm2m' });
const backendToken = accessToken({ sub: 'alice', client_id: 'backend-app', auth_time: 1_899_999_000, aud: 'backend' });
const bothToken = accessToken({ sub: 'alice', client_id: 'web', auth_time: 1_899_999_000, aud: ['backend', 'api1'] });
const certificateBoundToken = accessToken({ sub: 'alice', client_id: 'web', auth_time: 1_899_999_000, cnf: { 'x5t#S256': 'partner' } });

function setup() {
  const tokenValidator = fakeTokenValidator({
    'user-token': userToken, 'delegated-token': delegatedToken, 'client-token': clientToken, 'backend-token': backendToken, 'both-token': bothToken,
    'bound-token': certificateBoundToken,
  });
  const logger = recordingLogger();
  const grant = createDelegationGrant({ tokenValidator, logger, config });
  const run = async (raw: Record<string, string>, certificateThumbprint?: string) => {
    const ctx = grantContext(client, 'delegation', { grant_type: 'delegation', scope: 'backend.read', ...raw }, ['backend.read'], { certificateThumbprint });
    await settle(grant, ctx);
    return ctx;
  };
  return { grant, tokenValidator, logger, run };
}

describe('the delegation plugin', () => {
  it('is a plugin named like its folder, with one extension grant for "delegation"', () => {
    expect(delegationPlugin.name).toBe('delegation');
    expect(delegationPlugin.extensionGrants).toEqual([createDelegationGrant]);
    expect(setup().grant.grantType).toBe('delegation');
  });

  it('acts for the user of the token: their sub and auth_time, and act naming the client the token was issued to', async () => {
    const { run, tokenValidator } = setup();
    const ctx = await run({ token: 'user-token' });
    expect(tokenValidator.asked).toEqual(['user-token']);
    expect(ctx.result).toEqual({ subject: { kind: 'user', id: 'alice', authTime: 1_899_999_000 }, claims: { act: { client_id: 'web' } } });
    expect(ctx.customResponse).toEqual({});
  });

  it('nests an act the token already had', async () => {
    const ctx = await setup().run({ token: 'delegated-token' });
    expect(ctx.result).toMatchObject({ subject: { id: 'alice' }, claims: { act: { client_id: 'api1.client', act: { client_id: 'web' } } } });
  });

  it('answers invalid_grant without asking the validator when token is missing', async () => {
    const { run, tokenValidator } = setup();
    const ctx = await run({});
    expect(ctx.result).toEqual({ error: 'invalid_grant', description: 'The token parameter is missing.' });
    expect(tokenValidator.asked).toEqual([]);
  });

  it('answers invalid_grant for an empty token', async () => {
    const ctx = await setup().run({ token: '' });
    expect(ctx.result).toMatchObject({ error: 'invalid_grant' });
  });

  it('answers invalid_grant for a token that does not validate, and logs the reason but not the token', async () => {
    const { run, logger } = setup();
    const ctx = await run({ token: 'forged-token' });
    expect(ctx.result).toEqual({ error: 'invalid_grant', description: 'The token is invalid.' });
    expect(logger.lines).toEqual([
      { level: 'info', obj: { clientId: 'api1.client', reason: 'signature verification failed' }, msg: 'delegation: token rejected' },
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain('forged-token');
  });

  it('answers invalid_grant for a token that represents no user (no auth_time)', async () => {
    const ctx = await setup().run({ token: 'client-token' });
    expect(ctx.result).toEqual({ error: 'invalid_grant', description: 'The token does not represent a user.' });
  });

  it('copies no other claim of the incoming token', async () => {
    const tokenValidator = fakeTokenValidator({ t: accessToken({ sub: 'alice', client_id: 'web', auth_time: 1, role: 'admin', scope: 'api1.write' }) });
    const grant = createDelegationGrant({ tokenValidator, logger: recordingLogger(), config });
    const ctx = grantContext(client, 'delegation', { token: 't' }, ['backend.read']);
    await settle(grant, ctx);
    expect(ctx.result).toEqual({ subject: { kind: 'user', id: 'alice', authTime: 1 }, claims: { act: { client_id: 'web' } } });
  });

  it('answers invalid_grant for a user token addressed to an API the client does not front (issue 14.1), and logs the audience', async () => {
    const { run, logger } = setup();
    const ctx = await run({ token: 'backend-token' });
    expect(ctx.result).toEqual({ error: 'invalid_grant', description: 'The token was not issued to an API this client acts for.' });
    expect(logger.lines).toEqual([{
      level: 'info', obj: { clientId: 'api1.client', aud: 'backend', allowed: ['api1'] }, msg: 'delegation: token addressed to an API the client does not front',
    }]);
  });

  it('accepts a token one of whose audiences the client fronts', async () => {
    expect((await setup().run({ token: 'both-token' })).result).toMatchObject({ subject: { kind: 'user', id: 'alice' } });
  });
});

describe('the delegation plugin at start-up', () => {
  it('stops start-up for a client allowed delegation that fronts no API, naming the field', () => {
    const bare = checkConfig(
      { apiScopes: [{ name: 'backend.read' }], clients: [{ clientId: 'api1.client', requireClientSecret: false, allowedGrantTypes: ['delegation'], allowedScopes: ['backend.read'] }] },
      process.cwd(),
    );
    expect(() => createDelegationGrant({ tokenValidator: fakeTokenValidator({}), logger: recordingLogger(), config: bare })).toThrow(
      'clients[0].allowedSubjectTokenAudiences: client "api1.client" may use the delegation grant but lists no API resource whose tokens it may exchange; list the APIs it fronts, e.g. ["api1"]',
    );
  });

  it('takes a certificate-bound token only from a request with that certificate (RFC 8705 §3): invalid_grant otherwise', async () => {
    const { run } = setup();
    expect((await run({ token: 'bound-token' }, 'partner')).result).toMatchObject({ subject: { kind: 'user', id: 'alice' } });
    const refused = { error: 'invalid_grant', description: 'The token is bound to a TLS client certificate this request does not present.' };
    expect((await run({ token: 'bound-token' }, 'stranger')).result).toEqual(refused);
    expect((await run({ token: 'bound-token' })).result).toEqual(refused);
  });
});
