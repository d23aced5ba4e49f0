import { describe, expect, it } from 'vitest';
import { createPasswordThrottle } from '../../src/throttling/password-throttle.js';
import { createThrottledSignIn } from '../../src/throttling/throttled-sign-in.js';

const now = Date.parse('2030-01-01T00:00:00Z');
const options = { pairThreshold: 2, userThreshold: 100, addressThreshold: 100, maxDelay: 300, window: 900 };

describe('a sign-in under the password throttle', () => {
  it('runs the check and says how it went; after enough failures it asks to wait without checking', async () => {
    const signIn = createThrottledSignIn({ passwordThrottle: createPasswordThrottle(options), clock: { now: () => now } });
    let checks = 0;
    const wrong = () => Promise.resolve((checks++, undefined));
    expect(await signIn.attempt('alice', '192.0.2.1', wrong, (u) => u !== undefined)).toEqual({ outcome: 'rejected', result: undefined });
    expect(await signIn.attempt('alice', '192.0.2.1', wrong, (u) => u !== undefined)).toEqual({ outcome: 'rejected', result: undefined });
    const throttled = await signIn.attempt('alice', '192.0.2.1', wrong, (u) => u !== undefined);
    expect(throttled).toMatchObject({ outcome: 'throttled' });
    expect((throttled as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
    expect(checks).toBe(2);
  });

  it('a success clears the username\'s count', async () => {
    const signIn = createThrottledSignIn({ passwordThrottle: createPasswordThrottle(options), clock: { now: () => now } });
    await signIn.attempt('bob', '192.0.2.2', () => Promise.resolve(false), (ok) => ok);
    expect(await signIn.attempt('bob', '192.0.2.2', () => Promise.resolve(true), (ok) => ok)).toEqual({ outcome: 'accepted', result: true });
    expect(await signIn.attempt('bob', '192.0.2.2', () => Promise.resolve(false), (ok) => ok)).toEqual({ outcome: 'rejected', result: false });
    expect(await signIn.attempt('bob', '192.0.2.2', () => Promise.resolve(true), (ok) => ok)).toEqual({ outcome: 'accepted', result: true });
  });
});
