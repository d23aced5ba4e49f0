/**
 * Issue 36: anonymously registered clients (the `"open"` policy) are removed once unused for
 * `registration.openRegistration.unusedLifetime` seconds, counted from their last successful
 * authentication (the directory records it at most once a minute, `ClientDirectory.used`) or,
 * never used, from their registration. An agent registers anew on each machine and forgets its
 * client when it is uninstalled: without this, anonymous callers would only ever add records
 * that every node loads. Their registration access tokens go with them. Run on the expired-record
 * sweep's interval; on several nodes each removal is done once (a second `remove` finds nothing).
 */
import type { ClientRecordStore } from '../../store/client-records.js';
import { isOpenRegistration } from './open-policy.js';

export interface UnusedRegistrationsDeps {
  records: Pick<ClientRecordStore, 'list' | 'remove'>;
  /** Removes the client's registration access tokens (`RegistrationTokens.removeAccess`). */
  removeAccess(clientId: string): Promise<void>;
  lifetimeSeconds: number;
}

/** Removes the unused open registrations; answers their ids. */
export async function removeUnusedRegistrations(deps: UnusedRegistrationsDeps, now: number): Promise<string[]> {
  const removed: string[] = [];
  for (const record of await deps.records.list('client')) {
    if (!isOpenRegistration(record.definition)) continue;
    if ((record.lastUsedAt ?? record.createdAt) + deps.lifetimeSeconds * 1000 > now) continue;
    if (await deps.records.remove('client', record.id)) removed.push(record.id);
    await deps.removeAccess(record.id);
  }
  return removed;
}
