import type { DeviceCodeState } from './device-flow-store.js';

/** RFC 8628 §3.5: on `slow_down` the interval grows by 5 seconds for this and every later poll. */
export const slowDownIncrement = 5;

/**
 * Records a poll at `now`: too fast when it comes sooner than the interval after the previous
 * one (the first poll is never too fast). A too-fast poll still counts as the last poll.
 */
export function recordPoll(state: DeviceCodeState, now: number): { tooFast: boolean; next: DeviceCodeState } {
  const tooFast = state.lastPolledAt !== undefined && now - state.lastPolledAt < state.interval * 1000;
  return {
    tooFast,
    next: { ...state, lastPolledAt: now, interval: tooFast ? state.interval + slowDownIncrement : state.interval },
  };
}
