import type { Clock } from '../sdk/contracts.js';
import { hashKey } from './hash-key.js';
import { createMemoryClientRecords } from './memory-client-records.js';
import { createMemoryUserRecords } from './memory-user-records.js';
import { createMemorySecondFactors } from './memory-second-factors.js';
import { createMemoryLogoutDeliveries } from './memory-logout-deliveries.js';
import {
  DuplicateKeyError,
  type GrantFilter,
  type PersistedGrant,
  type SigningKeyRecord,
  type Store,
} from './store.js';
import { assertFilterNotEmpty, duplicateSigningKey } from './store-rules.js';

type StoredGrant = Omit<PersistedGrant, 'key'>;

const systemClock: Clock = { now: () => Date.now() };
const PRUNE_EVERY_MS = 60_000;

/**
 * A `Store` in process memory, for development and tests. Same semantics as the SQL stores;
 * nothing survives a restart and nothing is shared between processes.
 */
export function createMemoryStore(clock: Clock = systemClock): Store {
  const grants = new Map<string, StoredGrant>();
  // The stored keys of each `sessionId` (a grant family, a sign-in session): revoking a family,
  // signing out and a session's code rows read these instead of every record, as the SQL
  // stores read their session index. A busy store holds hundreds of thousands of records.
  const bySession = new Map<string, Set<string>>();
  const signingKeys = new Map<string, SigningKeyRecord>();
  let lastPrune = clock.now();

  function drop(hash: string): boolean {
    const grant = grants.get(hash);
    if (grant === undefined) return false;
    grants.delete(hash);
    if (grant.sessionId !== undefined) {
      const members = bySession.get(grant.sessionId)!;
      members.delete(hash);
      if (members.size === 0) bySession.delete(grant.sessionId);
    }
    return true;
  }

  // A development process may run without a sweeper; without this its memory would only grow.
  function pruneNowAndThen(): void {
    const now = clock.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    for (const [hash, grant] of grants) if (grant.expiresAt < now) drop(hash);
  }

  const withKey = (key: string, grant: StoredGrant): PersistedGrant => ({ key, ...grant });

  const isHeld = (hash: string, grant: PersistedGrant): boolean => {
    const existing = grants.get(hash);
    return existing !== undefined && existing.expiresAt > grant.createdAt;
  };

  function put(hash: string, { key: _handle, ...stored }: PersistedGrant): void {
    drop(hash); // an expired record under the same key is replaced
    grants.set(hash, stored);
    if (stored.sessionId !== undefined) {
      const members = bySession.get(stored.sessionId);
      if (members) members.add(hash);
      else bySession.set(stored.sessionId, new Set([hash]));
    }
  }

  /** The records a filter can match: a session's own when it names one, else every record. */
  function candidates(filter: GrantFilter): Iterable<[string, StoredGrant]> {
    if (filter.sessionId === undefined) return grants;
    const members = bySession.get(filter.sessionId);
    return members === undefined ? [] : [...members].map((hash): [string, StoredGrant] => [hash, grants.get(hash)!]);
  }

  const consumable = (grant: StoredGrant | undefined, now: number): grant is StoredGrant =>
    grant !== undefined && grant.consumedAt === undefined && grant.expiresAt > now;

  function matches(grant: StoredGrant, filter: GrantFilter): boolean {
    return (
      (filter.subjectId === undefined || grant.subjectId === filter.subjectId) &&
      (filter.clientId === undefined || grant.clientId === filter.clientId) &&
      (filter.sessionId === undefined || grant.sessionId === filter.sessionId) &&
      (filter.type === undefined || grant.type === filter.type)
    );
  }

  return {
    async migrate() {},

    async add(grant) {
      pruneNowAndThen();
      const hash = hashKey(grant.key);
      if (isHeld(hash, grant)) throw new DuplicateKeyError();
      put(hash, grant);
    },

    async get(key) {
      const grant = grants.get(hashKey(key));
      return grant && withKey(key, grant);
    },

    async consume(key, now) {
      const grant = grants.get(hashKey(key));
      if (!consumable(grant, now)) return undefined;
      grant.consumedAt = now;
      return withKey(key, grant);
    },

    // Synchronous from the first check to the last write, so nothing can run in between: all or nothing.
    async commit({ consume, add }) {
      pruneNowAndThen();
      const spent = consume === undefined ? undefined : grants.get(hashKey(consume.key));
      if (consume !== undefined && !consumable(spent, consume.now)) return false;
      const hashes = add.map((grant) => hashKey(grant.key));
      if (hashes.some((hash, i) => isHeld(hash, add[i]!) || hashes.indexOf(hash) !== i)) throw new DuplicateKeyError();
      if (spent !== undefined) spent.consumedAt = consume!.now;
      add.forEach((grant, i) => put(hashes[i]!, grant));
      return true;
    },

    async update(key, { data, subjectId, expectedData }) {
      const grant = grants.get(hashKey(key));
      if (!grant || grant.consumedAt !== undefined) return false;
      if (expectedData !== undefined && grant.data !== expectedData) return false;
      grant.data = data;
      if (subjectId !== undefined) grant.subjectId = subjectId;
      return true;
    },

    async remove(key) {
      drop(hashKey(key));
    },

    async removeAll(filter) {
      assertFilterNotEmpty(filter);
      let count = 0;
      for (const [hash, grant] of candidates(filter)) {
        if (matches(grant, filter)) {
          drop(hash);
          count++;
        }
      }
      return count;
    },

    async listGrants(filter, { now, limit, after }) {
      const found: PersistedGrant[] = [];
      for (const [hash, grant] of candidates(filter)) {
        if (matches(grant, filter) && grant.expiresAt > now && (after === undefined || hash > after)) found.push(withKey(hash, grant));
      }
      return found.sort((a, b) => (a.key < b.key ? -1 : 1)).slice(0, limit);
    },

    async removeStored(storedKey) {
      return drop(storedKey);
    },

    async findAll(filter, now) {
      assertFilterNotEmpty(filter);
      return [...candidates(filter)].filter(([, grant]) => grant.expiresAt > now && matches(grant, filter)).map(([hash, grant]) => withKey(hash, { ...grant }));
    },

    async removeExpired(now, batchSize) {
      let count = 0;
      for (const [hash, grant] of grants) {
        if (count >= batchSize) break;
        if (grant.expiresAt < now) {
          drop(hash);
          count++;
        }
      }
      return count;
    },

    async countExpired(now) {
      const counts: Record<string, number> = {};
      for (const grant of grants.values()) if (grant.expiresAt < now) counts[grant.type] = (counts[grant.type] ?? 0) + 1;
      return counts;
    },

    async listSigningKeys() {
      return [...signingKeys.values()]
        .map((key) => ({ ...key }))
        .sort((a, b) => a.createdAt - b.createdAt || (a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0));
    },

    async addSigningKey(key) {
      if (signingKeys.has(key.kid)) throw duplicateSigningKey(key.kid);
      signingKeys.set(key.kid, { ...key });
    },

    async updateSigningKey(kid, changes) {
      const key = signingKeys.get(kid);
      if (!key) return;
      if ('retiresAt' in changes) key.retiresAt = changes.retiresAt;
      if (changes.privateJwk !== undefined) key.privateJwk = changes.privateJwk;
    },

    async removeSigningKey(kid) {
      signingKeys.delete(kid);
    },

    clientRecords: createMemoryClientRecords(),
    users: createMemoryUserRecords(),
    factors: createMemorySecondFactors(),
    logoutDeliveries: createMemoryLogoutDeliveries(),

    async ping() {},
    async close() {},
  };
}
