import { describe, expect, it } from 'vitest';
import { recordPoll } from '../../src/device/polling-interval.js';
import type { DeviceCodeState } from '../../src/device/device-flow-store.js';

const state: DeviceCodeState = { flowId: 'f', userCodeDigest: 'digest', expiresAt: 1_000_000, interval: 5 };

describe('recordPoll (RFC 8628 §3.5)', () => {
  it('never calls the first poll too fast', () => {
    expect(recordPoll(state, 1000)).toEqual({ tooFast: false, next: { ...state, lastPolledAt: 1000 } });
  });

  it('allows a poll exactly one interval after the last', () => {
    expect(recordPoll({ ...state, lastPolledAt: 1000 }, 6000).tooFast).toBe(false);
  });

  it('calls a sooner poll too fast and adds 5 s to the interval, counting it as the last poll', () => {
    expect(recordPoll({ ...state, lastPolledAt: 1000 }, 5999)).toEqual({ tooFast: true, next: { ...state, interval: 10, lastPolledAt: 5999 } });
  });

  it('keeps the grown interval', () => {
    const grown = { ...state, interval: 10, lastPolledAt: 0 };
    expect(recordPoll(grown, 9999).tooFast).toBe(true);
    expect(recordPoll(grown, 10_000)).toEqual({ tooFast: false, next: { ...grown, lastPolledAt: 10_000 } });
  });
});
