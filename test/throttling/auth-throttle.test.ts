import { describe, expect, it } from 'vitest';
import { createAuthThrottle, type AuthThrottle, type AuthThrottleOptions } from '../../src/throttling/auth-throttle.js';
import { OAuthError } from '../../src/oauth/errors.js';

const start = Date.parse('2030-01-01T00:00:00Z');
const here = '10.0.0.1';
const elsewhere = '10.0.0.2';

function setup(options: Partial<AuthThrottleOptions> = {}) {
  const throttle = createAuthThrottle({ pairThreshold: 3, addressThreshold: 10, maxDelay: 60, window: 900, ...options });
  let now = start;
  return {
    throttle,
    now: () => now,
    advance(seconds: number) {
      now += seconds * 1000;
    },
  };
}

/** What `check` answers: `undefined` when the caller may go on, else the 429 it throws. */
function verdict(throttle: AuthThrottle, clientId: string | undefined, address: string, now: number) {
  try {
    throttle.check(clientId, address, now);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    const e = err as OAuthError;
    return { status: e.status, body: e.toJSON(), headers: e.headers };
  }
}

function waitOf(throttle: AuthThrottle, clientId: string | undefined, address: string, now: number): number {
  const v = verdict(throttle, clientId, address, now);
  return v === undefined ? 0 : Number(v.headers['Retry-After']);
}

describe('auth throttle', () => {
  it('lets failures through below pairThreshold, then answers 429 temporarily_unavailable with Retry-After', () => {
    const { throttle, now } = setup();
    throttle.failed('app', here, now());
    throttle.failed('app', here, now());
    expect(verdict(throttle, 'app', here, now())).toBeUndefined();
    throttle.failed('app', here, now());
    expect(verdict(throttle, 'app', here, now())).toEqual({
      status: 429,
      body: { error: 'temporarily_unavailable', error_description: 'Too many failed authentications; retry after 1 seconds.' },
      headers: { 'Retry-After': '1' },
    });
  });

  it('doubles the back-off with every further failure, up to maxDelay', () => {
    const { throttle, now, advance } = setup({ pairThreshold: 3, maxDelay: 60 });
    throttle.failed('app', here, now());
    throttle.failed('app', here, now());
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      throttle.failed('app', here, now());
      const wait = waitOf(throttle, 'app', here, now());
      waits.push(wait);
      // The caller waits exactly as told, then fails again.
      advance(wait);
      expect(verdict(throttle, 'app', here, now())).toBeUndefined();
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });

  it('keeps blocking until Retry-After has passed, counting down in whole seconds', () => {
    const { throttle, now, advance } = setup({ pairThreshold: 1 });
    throttle.failed('app', here, now());
    throttle.failed('app', here, now());
    expect(waitOf(throttle, 'app', here, now())).toBe(2);
    advance(1.5);
    expect(waitOf(throttle, 'app', here, now())).toBe(1);
    advance(0.5);
    expect(verdict(throttle, 'app', here, now())).toBeUndefined();
  });

  it('blocks only the (client, address) pair: the same client from another address, and another client here, go on', () => {
    const { throttle, now } = setup();
    for (let i = 0; i < 3; i++) throttle.failed('app', here, now());
    expect(waitOf(throttle, 'app', here, now())).toBe(1);
    expect(verdict(throttle, 'app', elsewhere, now())).toBeUndefined();
    expect(verdict(throttle, 'other-app', here, now())).toBeUndefined();
  });

  it('blocks an address after addressThreshold failures spread over many client ids, and only that address', () => {
    const { throttle, now } = setup({ pairThreshold: 3, addressThreshold: 10 });
    for (let i = 0; i < 9; i++) throttle.failed(`guess-${i}`, here, now());
    expect(verdict(throttle, 'app', here, now())).toBeUndefined();
    throttle.failed('guess-9', here, now());
    expect(waitOf(throttle, 'app', here, now())).toBe(1);
    expect(waitOf(throttle, undefined, here, now())).toBe(1);
    expect(verdict(throttle, 'app', elsewhere, now())).toBeUndefined();
  });

  it('counts failures without a client id per address too', () => {
    const { throttle, now } = setup({ pairThreshold: 100, addressThreshold: 2 });
    throttle.failed(undefined, here, now());
    throttle.failed(undefined, here, now());
    expect(waitOf(throttle, 'app', here, now())).toBe(1);
  });

  it('forgets the pair count on success, but not the address count', () => {
    const { throttle, now } = setup({ pairThreshold: 3, addressThreshold: 5 });
    throttle.failed('app', here, now());
    throttle.failed('app', here, now());
    throttle.succeeded('app', here);
    throttle.failed('app', here, now());
    throttle.failed('app', here, now());
    expect(verdict(throttle, 'app', here, now())).toBeUndefined();
    // Five failures from this address in all: the address counter was not reset.
    throttle.failed('app', here, now());
    expect(waitOf(throttle, 'other-app', here, now())).toBe(1);
  });

  it('forgets failures once the window has passed', () => {
    const { throttle, now, advance } = setup({ pairThreshold: 3, window: 60 });
    throttle.failed('app', here, now());
    throttle.failed('app', here, now());
    advance(61);
    throttle.failed('app', here, now());
    throttle.failed('app', here, now());
    expect(verdict(throttle, 'app', here, now())).toBeUndefined();
    throttle.failed('app', here, now());
    expect(waitOf(throttle, 'app', here, now())).toBe(1);
  });

  it('keeps counting failures that each come within the window of the previous one', () => {
    const { throttle, now, advance } = setup({ pairThreshold: 3, window: 60 });
    throttle.failed('app', here, now());
    advance(50);
    throttle.failed('app', here, now());
    advance(50);
    throttle.failed('app', here, now());
    expect(waitOf(throttle, 'app', here, now())).toBe(1);
  });

  it('does not forget a counter while its back-off is running, even past the window', () => {
    const { throttle, now, advance } = setup({ pairThreshold: 1, maxDelay: 120, window: 60 });
    // Eight failures at once: 2^7 = 128 s, capped at 120.
    for (let i = 0; i < 8; i++) throttle.failed('app', here, now());
    expect(waitOf(throttle, 'app', here, now())).toBe(120);
    advance(100);
    expect(waitOf(throttle, 'app', here, now())).toBe(20);
  });

  it('keeps a persistent attacker at maxDelay instead of starting over once the window has passed', () => {
    // maxDelay above the window: the back-off must still reach it.
    const { throttle, now, advance } = setup({ pairThreshold: 3, maxDelay: 3600, window: 900 });
    for (let i = 0; i < 2; i++) throttle.failed('app', here, now());
    const waits: number[] = [];
    for (let i = 0; i < 14; i++) {
      throttle.failed('app', here, now());
      const wait = waitOf(throttle, 'app', here, now());
      waits.push(wait);
      advance(wait);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3600, 3600]);
  });
});

describe('auth throttle in memory', () => {
  it('answers synchronously: the hot path awaits nothing when the counters are in this process', () => {
    const { throttle, now } = setup();
    expect(throttle.check('app', here, now())).toBe(false);
    expect(throttle.failed('app', here, now())).toBeUndefined();
    expect(throttle.check('app', here, now())).toBe(true);
    expect(throttle.succeeded('app', here)).toBeUndefined();
  });
});
