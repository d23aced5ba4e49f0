/**
 * Step 3a, throttle, over the real auth throttle: nothing without a throttle or an address; the
 * check answers 429 with Retry-After once failures pile up, before any secret is judged; a
 * success resets only a counter that exists.
 */
import { describe, expect, it } from 'vitest';
import { createAttemptThrottle } from '../../src/client-authentication/throttle-attempt.js';
import type { Attempt } from '../../src/client-authentication/types.js';
import { createAuthThrottle, type AuthThrottle } from '../../src/throttling/auth-throttle.js';
import { OAuthError } from '../../src/oauth/errors.js';
import { NOW, source } from './fakes.js';

const options = { pairThreshold: 2, addressThreshold: 5, maxDelay: 60, window: 900 };

describe('the throttle around an attempt', () => {
  it('does nothing without a throttle, or for a caller without an address', () => {
    const off = createAttemptThrottle(undefined, { now: () => NOW });
    expect(off.check('web', source(), {})).toBeUndefined();
    const on = createAttemptThrottle(createAuthThrottle(options), { now: () => NOW });
    const attempt: Attempt = {};
    expect(on.check('web', source({}, undefined, { remoteAddress: undefined }), attempt)).toBeUndefined();
    expect(attempt.counted).toBeUndefined();
  });

  it('engages after repeated failures: 429 temporarily_unavailable with Retry-After, then lets the caller in again', () => {
    let now = NOW;
    const throttle = createAttemptThrottle(createAuthThrottle(options), { now: () => now });
    for (let i = 0; i < 3; i++) throttle.failed('web', source());
    let refusal: unknown;
    try {
      throttle.check('web', source(), {});
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(OAuthError);
    const err = refusal as OAuthError;
    expect([err.status, err.code]).toEqual([429, 'temporarily_unavailable']);
    expect(Number(err.headers['Retry-After'])).toBeGreaterThan(0);
    now += Number(err.headers['Retry-After']) * 1000;
    const attempt: Attempt = {};
    expect(throttle.check('web', source(), attempt)).toBeUndefined();
    expect(attempt.counted).toBe(true);
  });

  it('resets on success only what was counted', () => {
    const resets: string[] = [];
    const counting: AuthThrottle = { check: () => false, failed: () => undefined, succeeded: (id) => void resets.push(id) };
    const throttle = createAttemptThrottle(counting, { now: () => NOW });
    const clean: Attempt = {};
    throttle.check('web', source(), clean);
    throttle.succeeded('web', source(), clean);
    expect(resets).toEqual([]);
    throttle.succeeded('web', source(), { counted: true });
    expect(resets).toEqual(['web']);
  });

  it('answers a promise only when the counters are shared', async () => {
    const shared: AuthThrottle = { check: async () => true, failed: async () => undefined, succeeded: async () => undefined };
    const throttle = createAttemptThrottle(shared, { now: () => NOW });
    const attempt: Attempt = {};
    const pending = throttle.check('web', source(), attempt);
    expect(pending).toBeInstanceOf(Promise);
    await pending;
    expect(attempt.counted).toBe(true);
  });
});
