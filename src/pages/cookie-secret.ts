/**
 * The secret behind every page's cookie and CSRF tokens (`page-parts.ts`), the DPoP nonces and
 * the shared counters' keys: the configured `pageSecret` (formerly `deviceFlow.cookieSecret`), or else a random one
 * created once in the store, so every node sharing the store signs and accepts the same cookies.
 *
 * With key-encryption keys (`signing.keyEncryptionKeys`) the stored secret is sealed like the
 * managed signing keys (`key-protection.ts`), so a copy of the database cannot forge cookies,
 * CSRF tokens or DPoP nonces. A record stored plain before is sealed the first time a node that
 * has a key-encryption key loads it; a sealed one stops start-up on a node that cannot open it.
 * Without a key-encryption key the secret is readable by whoever reads the database.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Clock } from '../sdk/contracts.js';
import type { KeyProtector } from '../oauth/keys/key-protection.js';
import { DuplicateKeyError, type Store } from '../store/store.js';

const recordKey = 'device_flow:cookie_secret';
const recordType = 'device_cookie_secret';
const hundredYears = 100 * 365 * 86_400_000;
/** How a refusal names it; also the sealing's additional data, so the text opens only as this secret. */
const secretName = 'the page cookie secret (stored as device_flow:cookie_secret)';

export interface CookieSecretDeps {
  configured: string | undefined;
  store: Store;
  clock: Clock;
  /** Seals the stored secret when a key-encryption key is configured; without it, stored plain. */
  protector?: KeyProtector;
}

export async function loadCookieSecret({ configured, store, clock, protector }: CookieSecretDeps): Promise<Buffer> {
  if (configured !== undefined) return Buffer.from(configured, 'utf8');
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await store.get(recordKey);
    if (existing?.type === recordType) {
      const value = protector ? protector.openSecret(secretName, existing.data) : existing.data;
      if (protector?.enabled && protector.protectionOfSecret(existing.data) === 'plain') {
        // Stored plain by an older version, or before a key-encryption key was set: seal it in place.
        await reseal(store, protector, existing.data, value);
      }
      return Buffer.from(value, 'base64url');
    }
    const now = clock.now();
    const secret = randomBytes(32);
    const plain = secret.toString('base64url');
    try {
      await store.add({
        key: recordKey, type: recordType, clientId: '', subjectId: undefined, sessionId: undefined,
        createdAt: now, expiresAt: now + hundredYears, consumedAt: undefined, data: protector ? protector.sealSecret(secretName, plain) : plain,
      });
      return secret;
    } catch (err) {
      // Another node created it first: use theirs.
      if (!(err instanceof DuplicateKeyError)) throw err;
    }
  }
  throw new Error('Could not create or read the device page cookie secret.');
}

/**
 * `svc keys rewrap`: seals the stored secret under the first key-encryption key when it is plain
 * or sealed under another; whether it rewrote it.
 */
export async function rewrapCookieSecret(store: Store, protector: KeyProtector): Promise<boolean> {
  const existing = await store.get(recordKey);
  if (existing?.type !== recordType || !protector.enabled || protector.protectionOfSecret(existing.data) === protector.currentKekId) return false;
  return reseal(store, protector, existing.data, protector.openSecret(secretName, existing.data));
}

/** `expectedData` makes the rewrite a no-op when another node or command rewrote it first. */
function reseal(store: Store, protector: KeyProtector, stored: string, value: string): Promise<boolean> {
  return store.update(recordKey, { data: protector.sealSecret(secretName, value), expectedData: stored });
}

/**
 * One key per purpose, so a cookie MAC can never pass as a CSRF token or the other way round.
 * (The purposes' words predate the shared page layer; they stay, so stored secrets keep working.)
 */
export function deriveKey(secret: Buffer, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`svc device page: ${purpose}`).digest();
}
