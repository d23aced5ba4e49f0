/**
 * Server-provided DPoP nonces (RFC 9449 §8) that every node accepts without a store round trip:
 * a nonce is the number of the current time window and an HMAC of it under a key all nodes
 * share. A nonce of the current or the previous window is fresh, so one lives at least one
 * window and at most two.
 *
 * The key is derived from the same secret as the sign-in cookies (`pageSecret` (formerly `deviceFlow.cookieSecret`), or
 * the random one created once in the store), with its own purpose label.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../sdk/contracts.js';

export interface DpopNonces {
  /** The nonce to hand out now. */
  current(): Promise<string>;
  /** Whether `nonce` is one of ours and of the current or the previous window. */
  isFresh(nonce: string): Promise<boolean>;
}

const maxNonceLength = 64;

export function createDpopNonces({ secret, clock, lifetimeSeconds }: {
  /** Read once on first use and cached (a failed read is retried next time). */
  secret: () => Promise<Buffer>;
  clock: Clock;
  lifetimeSeconds: number;
}): DpopNonces {
  let key: Promise<Buffer> | undefined;
  function nonceKey(): Promise<Buffer> {
    key ??= secret().then(
      (s) => createHmac('sha256', s).update('svc dpop nonce').digest(),
      (err: unknown) => {
        key = undefined;
        throw err;
      },
    );
    return key;
  }
  const windowAt = (): number => Math.floor(clock.now() / 1000 / lifetimeSeconds);
  const mac = (k: Buffer, window: number): Buffer => createHmac('sha256', k).update(String(window)).digest().subarray(0, 16);
  const nonceOf = (k: Buffer, window: number): string => `${window.toString(36)}.${mac(k, window).toString('base64url')}`;

  return {
    async current() {
      return nonceOf(await nonceKey(), windowAt());
    },
    async isFresh(nonce) {
      if (nonce.length > maxNonceLength) return false;
      const dot = nonce.indexOf('.');
      if (dot <= 0) return false;
      const window = Number.parseInt(nonce.slice(0, dot), 36);
      const now = windowAt();
      if (window !== now && window !== now - 1) return false;
      const given = Buffer.from(nonce.slice(dot + 1), 'base64url');
      const expected = mac(await nonceKey(), window);
      return given.length === expected.length && timingSafeEqual(given, expected) && nonceOf(await nonceKey(), window) === nonce;
    },
  };
}
