/**
 * The secret behind every page's cookie and CSRF tokens (`page-parts.ts`): the configured
 * `deviceFlow.cookieSecret`, or else a random one created once in the store, so every node
 * sharing the store signs and accepts the same cookies.
 *
 * A stored secret is readable by whoever reads the database (as are the managed signing keys);
 * deployments that want otherwise set `deviceFlow.cookieSecret`.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Clock } from '../sdk/contracts.js';
import { DuplicateKeyError, type Store } from '../store/store.js';

const recordKey = 'device_flow:cookie_secret';
const recordType = 'device_cookie_secret';
const hundredYears = 100 * 365 * 86_400_000;

export async function loadCookieSecret(deps: { configured: string | undefined; store: Store; clock: Clock }): Promise<Buffer> {
  if (deps.configured !== undefined) return Buffer.from(deps.configured, 'utf8');
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await deps.store.get(recordKey);
    if (existing?.type === recordType) return Buffer.from(existing.data, 'base64url');
    const now = deps.clock.now();
    const secret = randomBytes(32);
    try {
      await deps.store.add({
        key: recordKey, type: recordType, clientId: '', subjectId: undefined, sessionId: undefined,
        createdAt: now, expiresAt: now + hundredYears, consumedAt: undefined, data: secret.toString('base64url'),
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
 * One key per purpose, so a cookie MAC can never pass as a CSRF token or the other way round.
 * (The purposes' words predate the shared page layer; they stay, so stored secrets keep working.)
 */
export function deriveKey(secret: Buffer, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`svc device page: ${purpose}`).digest();
}
