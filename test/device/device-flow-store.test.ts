import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createDeviceFlowStore } from '../../src/device/device-flow-store.js';
import { userCodeScheme, type UserCodeScheme } from '../../src/device/user-code.js';
import { manualClock } from './helpers.js';

const base20 = userCodeScheme('base20');
/** A scheme that hands out the given codes in order. */
const scripted = (...codes: string[]): UserCodeScheme => ({ ...base20, generate: () => codes.shift() ?? base20.generate() });

function setup() {
  const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
  const store = createMemoryStore(clock);
  return { clock, store, flows: createDeviceFlowStore({ store, clock }) };
}
const start = { clientId: 'tv', scopes: ['api1.read'], lifetimeSeconds: 300, intervalSeconds: 5 };

describe('device flow records', () => {
  it('keep the flow under the user code and only polling state under the device code', async () => {
    const { clock, store, flows } = setup();
    const started = await flows.start({ ...start, userCodes: base20 });
    expect(started.expiresAt).toBe(clock.now() + 300_000);
    const flow = await flows.getFlow(started.userCode);
    expect(flow?.value).toEqual({ flowId: expect.any(String), clientId: 'tv', scopes: ['api1.read'], status: 'pending', expiresAt: started.expiresAt });
    const device = await flows.getDeviceCode(started.deviceCode);
    expect(device).toEqual({
      clientId: 'tv', redeemedAt: undefined,
      state: { value: { flowId: flow!.value.flowId, userCodeDigest: expect.any(String), expiresAt: started.expiresAt, interval: 5 }, version: expect.any(String) },
    });
    expect(await flows.getFlowOf(device!.state.value)).toEqual(flow);
    // Nothing stored holds either code in plain.
    const records = await Promise.all([store.get(started.deviceCode), store.get(`user_code:${device!.state.value.userCodeDigest}`)]);
    for (const record of records) {
      expect(record!.data).not.toContain(started.deviceCode);
      expect(record!.data).not.toContain(started.userCode);
    }
  });

  it('pick another user code when the first is held by a live flow', async () => {
    const { flows } = setup();
    const first = await flows.start({ ...start, userCodes: scripted('BCDFGHJK') });
    const second = await flows.start({ ...start, userCodes: scripted('BCDFGHJK', 'LMNPQRST') });
    expect(first.userCode).toBe('BCDFGHJK');
    expect(second.userCode).toBe('LMNPQRST');
    expect((await flows.getFlow('BCDFGHJK'))!.value.flowId).not.toBe((await flows.getFlow('LMNPQRST'))!.value.flowId);
  });

  it('reuse a user code once its flow expired, and the old device code cannot reach the new flow', async () => {
    const { clock, flows } = setup();
    const old = await flows.start({ ...start, userCodes: scripted('BCDFGHJK') });
    clock.advance(300);
    const fresh = await flows.start({ ...start, userCodes: scripted('BCDFGHJK') });
    expect(fresh.userCode).toBe('BCDFGHJK');
    const oldState = (await flows.getDeviceCode(old.deviceCode))!.state.value;
    expect(oldState.flowId).not.toBe((await flows.getFlow('BCDFGHJK'))!.value.flowId);
  });

  it('decide a flow once: a second change from the same read loses', async () => {
    const { flows } = setup();
    const { userCode } = await flows.start({ ...start, userCodes: base20 });
    const read = (await flows.getFlow(userCode))!;
    const [approve, deny] = await Promise.all([
      flows.setFlow(userCode, read, { ...read.value, status: 'approved', subject: 'alice', authTime: 1 }),
      flows.setFlow(userCode, read, { ...read.value, status: 'denied' }),
    ]);
    expect([approve, deny]).toEqual([true, false]);
    expect((await flows.getFlow(userCode))!.value.status).toBe('approved');
  });

  it('tell when a device code was redeemed, after which its polling state is frozen', async () => {
    const { flows, store, clock } = setup();
    const { deviceCode } = await flows.start({ ...start, userCodes: base20 });
    const before = (await flows.getDeviceCode(deviceCode))!.state;
    await store.consume(deviceCode, clock.now());
    expect((await flows.getDeviceCode(deviceCode))!.redeemedAt).toBe(clock.now());
    expect(await flows.setDeviceCode(deviceCode, before, { ...before.value, lastPolledAt: 1 })).toBe(false);
  });

  it('know nothing of unknown codes or records of other kinds', async () => {
    const { flows, store, clock } = setup();
    await store.add({ key: 'some-refresh-token', type: 'refresh_token', clientId: 'tv', subjectId: 'a', sessionId: undefined, createdAt: clock.now(), expiresAt: clock.now() + 1000, consumedAt: undefined, data: '{}' });
    expect(await flows.getDeviceCode('some-refresh-token')).toBeUndefined();
    expect(await flows.getDeviceCode('nope')).toBeUndefined();
    expect(await flows.getFlow('BCDFGHJK')).toBeUndefined();
  });
});
