/**
 * Leases: "only one node does this" across nodes sharing a store, e.g. creating a signing key.
 * A lease is a record of its own kind (`type: 'lease'`, no client) whose atomic `add` decides
 * the holder; it expires by itself, and the expired-record sweep removes it.
 */
import { DuplicateKeyError, type Store } from './store.js';

/** Takes the lease `name` for `ttlMs`; `false` when another node holds it. */
export async function acquireLease(store: Store, name: string, now: number, ttlMs: number): Promise<boolean> {
  try {
    await store.add({
      key: name, type: 'lease', clientId: '', subjectId: undefined, sessionId: undefined,
      createdAt: now, expiresAt: now + ttlMs, consumedAt: undefined, data: '{}',
    });
    return true;
  } catch (err) {
    if (err instanceof DuplicateKeyError) return false;
    throw err;
  }
}
