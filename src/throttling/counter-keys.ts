/**
 * What a shared counter store (PostgreSQL, Redis) sees of a counter's key — a username, client
 * id or address: its HMAC-SHA-256 under a key derived from the service's root secret (the page
 * cookie secret, `pages/cookie-secret.ts`), which every node sharing the store has. A plain
 * SHA-256 would not do: usernames and addresses are few enough to guess, and a reader of the
 * counters could hash a dictionary and match it. Without the secret the digests say nothing.
 */
import { createHmac, hash } from 'node:crypto';

/** A key as the shared store holds it. */
export type CounterKeys = (key: string) => string;

/**
 * `rootSecret` is read on first use (it is loaded at start-up, after the counters are made),
 * then kept. Without one (nodes that share no secret: `counters.ts`), the plain SHA-256.
 */
export function counterKeys(rootSecret: (() => Buffer) | undefined): CounterKeys {
  if (rootSecret === undefined) return (key) => hash('sha256', key, 'base64url');
  let hmacKey: Buffer | undefined;
  return (key) => {
    // Its own purpose label: this key can never pass for a cookie, CSRF or nonce key.
    hmacKey ??= createHmac('sha256', rootSecret()).update('svc shared counter keys').digest();
    return createHmac('sha256', hmacKey).update(key).digest('base64url');
  };
}
