/** The grant on its own: plain inputs, a memory store, a manual clock. */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createDeviceFlowStore } from '../../src/device/device-flow-store.js';
import { userCodeScheme } from '../../src/device/user-code.js';
import { createDeviceCodeGrant, deviceCodeGrantType } from '../../src/grants/device-code.js';
import type { Client } from '../../src/config/schema.js';
import type { GrantContext, GrantSuccess } from '../../src/sdk/contracts.js';
import { isOAuthError } from '../../src/sdk/errors.js';
import { familyOfSpentGrant } from '../../src/oauth/grant-family.js';
import { manualClock } from '../device/helpers.js';

const client = (clientId: string) => ({ clientId, pollingInterval: 5 }) as Client;
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

function setup() {
  const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
  const store = createMemoryStore(clock);
  const flows = createDeviceFlowStore({ store, clock });
  const grant = createDeviceCodeGrant({ store, clock, logger: silent });
  /** The grant's success, or the error it threw as `{ error, description }`. */
  async function poll(deviceCode: string | undefined, clientId = 'tv'): Promise<GrantSuccess | { error: string; description: string } | undefined> {
    const raw = new Map(deviceCode === undefined ? [] : [['device_code', deviceCode]]);
    const ctx: GrantContext = {
      request: { client: client(clientId), grantType: deviceCodeGrantType, requestedScopes: [], scopeRequested: false, resources: [], raw },
      result: undefined,
      customResponse: {},
    };
    try {
      await grant.validate(ctx);
    } catch (err) {
      if (isOAuthError(err)) return { error: err.code, description: err.description };
      throw err;
    }
    return ctx.result;
  }
  const startFlow = () =>
    flows.start({ clientId: 'tv', scopes: ['openid', 'api1.read'], lifetimeSeconds: 300, intervalSeconds: 5, userCodes: userCodeScheme('base20') });
  async function decide(userCode: string, status: 'approved' | 'denied') {
    const read = (await flows.getFlow(userCode))!;
    await flows.setFlow(userCode, read, { ...read.value, status, ...(status === 'approved' ? { subject: 'alice', authTime: 1_893_456_000 } : {}) });
  }
  return { clock, store, grant, poll, startFlow, decide };
}

describe('device_code grant', () => {
  it('has the RFC 8628 grant type', () => {
    expect(setup().grant.grantType).toBe('urn:ietf:params:oauth:grant-type:device_code');
  });

  it('walks pending, slow_down, approved, used', async () => {
    const { clock, store, poll, startFlow, decide } = setup();
    const { deviceCode, userCode } = await startFlow();
    expect(await poll(deviceCode)).toMatchObject({ error: 'authorization_pending' });
    clock.advance(1);
    expect(await poll(deviceCode)).toMatchObject({ error: 'slow_down' });
    await decide(userCode, 'approved');
    clock.advance(10);
    // The grant names the code to spend; the token endpoint spends it with the tokens.
    expect(await poll(deviceCode)).toEqual({
      subject: { kind: 'user', id: 'alice', authTime: 1_893_456_000 }, scopes: ['openid', 'api1.read'], consumes: deviceCode,
    });
    await store.consume(deviceCode, clock.now());
    clock.advance(10);
    expect(await poll(deviceCode)).toEqual({ error: 'invalid_grant', description: 'The device code has already been used.' });
  });

  it('answers a too-fast poll of an approved code with the decision, not slow_down', async () => {
    const { clock, poll, startFlow, decide } = setup();
    const { deviceCode, userCode } = await startFlow();
    await decide(userCode, 'approved');
    expect(await poll(deviceCode)).toMatchObject({ subject: { id: 'alice' }, consumes: deviceCode });
    clock.advance(1);
    expect(await poll(deviceCode)).toMatchObject({ subject: { id: 'alice' }, consumes: deviceCode });
  });

  // The first redemption's node wrote either format: a node of the previous release or one
  // before the contract the plain one, a node after it the time-ordered one.
  it.each([['plain', false], ['time-ordered', true]])('revokes the %s family of the first redemption when redeemed again after the polling interval, and not within it', async (_format, timeOrdered) => {
    const { clock, store, grant, poll, startFlow, decide } = setup();
    const { deviceCode, userCode } = await startFlow();
    await decide(userCode, 'approved');
    await poll(deviceCode);
    const family = familyOfSpentGrant(deviceCode, timeOrdered);
    await store.commit({
      consume: { key: deviceCode, now: clock.now() },
      add: [{ key: 'issued-token', type: 'reference_token', clientId: 'tv', subjectId: 'alice', sessionId: family, createdAt: clock.now(), expiresAt: clock.now() + 60_000, consumedAt: undefined, data: '{}' }],
    });
    const request = { client: client('tv'), grantType: deviceCodeGrantType, requestedScopes: [], scopeRequested: false, resources: [], raw: new Map() };

    clock.advance(4);
    expect(await grant.spent!(deviceCode, request)).toMatchObject({ code: 'invalid_grant', description: 'The device code has already been used.' });
    expect(await store.get('issued-token')).toBeDefined();
    clock.advance(1);
    expect(await poll(deviceCode)).toEqual({ error: 'invalid_grant', description: 'The device code has already been used.' });
    expect(await store.get('issued-token')).toBeUndefined();
  });

  it('answers access_denied, expired_token, invalid_grant and invalid_request', async () => {
    const { clock, poll, startFlow, decide } = setup();
    const denied = await startFlow();
    await decide(denied.userCode, 'denied');
    expect(await poll(denied.deviceCode)).toMatchObject({ error: 'access_denied' });
    expect(await poll(denied.deviceCode, 'other-client')).toMatchObject({ error: 'invalid_grant' });
    expect(await poll('unknown')).toMatchObject({ error: 'invalid_grant' });
    expect(await poll(undefined)).toMatchObject({ error: 'invalid_request' });
    const late = await startFlow();
    clock.advance(300);
    expect(await poll(late.deviceCode)).toMatchObject({ error: 'expired_token' });
  });
});
