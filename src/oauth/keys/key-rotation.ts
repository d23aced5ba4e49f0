/**
 * Rotation of the managed signing keys of one algorithm, after Duende's automatic key
 * management: a new key is published in the JWKS for `propagationTime` before it signs, and a
 * replaced key stays published until every token it signed has expired.
 *
 * Nodes sharing a store agree on every key: only the node whose lease lands first creates the
 * first key or a successor; the others wait for it to appear.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { exportJWK, generateKeyPair } from 'jose';
import type { Clock, Logger } from '../../sdk/contracts.js';
import type { SigningKeyRecord, Store } from '../../store/store.js';
import { acquireLease } from '../../store/lease.js';
import type { KeyProtector } from './key-protection.js';

const leaseMs = 60_000;
/** Poll period while waiting for another node's key. */
const keyPollMs = 50;

export interface KeyRotationDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  protector: KeyProtector;
  /** Seconds: how often a key is replaced, and how long a successor is published before it signs. */
  rotationInterval: number;
  propagationTime: number;
  /** How long a replaced key stays published after its successor activates (ms). */
  retentionMs: number;
  /** How long a node that lost the race to create a key waits for the winner's key (real time). */
  keyWaitMs: number;
}

export const isActive = (r: SigningKeyRecord, now: number): boolean =>
  r.activatesAt <= now && (r.retiresAt === undefined || r.retiresAt > now);

export const newestActive = (records: readonly SigningKeyRecord[], now: number): SigningKeyRecord | undefined =>
  records
    .filter((r) => isActive(r, now))
    .sort((a, b) => b.activatesAt - a.activatesAt || (a.kid < b.kid ? 1 : -1))[0];

/**
 * Makes and stores a new key of `alg` that signs from `activatesAt`; the rotation below, and the
 * admin API's "rotate now" (issue 39), which publishes it `propagationTime` before it signs.
 */
export async function newManagedKey(
  { store, clock, logger, protector }: Pick<KeyRotationDeps, 'store' | 'clock' | 'logger' | 'protector'>,
  alg: string,
  activatesAt: number,
): Promise<SigningKeyRecord> {
  const { privateKey } = await generateKeyPair(alg, alg.startsWith('RS') || alg.startsWith('PS') ? { extractable: true, modulusLength: 2048 } : { extractable: true });
  const kid = randomUUID().replaceAll('-', '');
  const record: SigningKeyRecord = {
    kid,
    alg,
    privateJwk: protector.seal(kid, alg, JSON.stringify(await exportJWK(privateKey))),
    createdAt: clock.now(),
    activatesAt,
    retiresAt: undefined,
  };
  await store.addSigningKey(record);
  logger.info({ kid, alg, activatesAt: new Date(activatesAt).toISOString() }, 'signing key created');
  return record;
}

/** Returns `rotate(alg, records, now)`: brings one algorithm's stored keys up to date; says whether they changed. */
export function createKeyRotation(deps: KeyRotationDeps) {
  const { store, clock, logger, protector } = deps;

  const createManagedKey = async (alg: string, activatesAt: number): Promise<void> => {
    await newManagedKey({ store, clock, logger, protector }, alg, activatesAt);
  };

  /** Waits (bounded) until the store holds a key of `alg` that `found` accepts. */
  async function waitForKey(alg: string, found: (r: SigningKeyRecord, now: number) => boolean): Promise<boolean> {
    const deadline = Date.now() + deps.keyWaitMs;
    do {
      await sleep(keyPollMs);
      const now = clock.now();
      if ((await store.listSigningKeys()).some((r) => r.alg === alg && found(r, now))) return true;
    } while (Date.now() < deadline);
    return false;
  }

  const claim = (lease: string, now: number) => acquireLease(store, `signing-key-lease:${lease}`, now, leaseMs);

  /** No active key (first start, or every key retired): nothing can have cached a JWKS yet, so sign at once. */
  async function createFirst(alg: string, now: number): Promise<void> {
    if (await claim(`${alg}:first`, now)) {
      await createManagedKey(alg, now);
    } else if (!(await waitForKey(alg, isActive))) {
      logger.warn({ alg }, 'another node claimed the first signing key but none appeared; creating one here');
      await createManagedKey(alg, clock.now());
    }
  }

  /** The active key is due for replacement: publish its successor now, signing after `propagationTime`. */
  async function createSuccessor(alg: string, active: SigningKeyRecord, now: number): Promise<void> {
    if (await claim(`${alg}:after:${active.kid}`, now)) {
      await createManagedKey(alg, now + 1000 * deps.propagationTime);
    } else {
      // Another node is creating the successor; a miss here is caught up by the next refresh.
      await waitForKey(alg, (r) => r.kid !== active.kid && r.createdAt >= active.createdAt);
    }
  }

  /** Replaced keys get their retirement time; retired ones are removed. Returns the kids removed. */
  async function retire(records: readonly SigningKeyRecord[], active: SigningKeyRecord, now: number): Promise<string[]> {
    const removed: string[] = [];
    for (const r of records) {
      if (r === active || r.activatesAt > now) continue;
      if (r.retiresAt === undefined) {
        await store.updateSigningKey(r.kid, { retiresAt: active.activatesAt + deps.retentionMs });
      } else if (r.retiresAt <= now) {
        await store.removeSigningKey(r.kid);
        removed.push(r.kid);
      }
    }
    return removed;
  }

  return async function rotate(alg: string, records: SigningKeyRecord[], now: number): Promise<{ changed: boolean; removed: string[] }> {
    const active = newestActive(records, now);
    if (!active) {
      await createFirst(alg, now);
      return { changed: true, removed: [] };
    }
    let changed = false;
    const newest = records.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
    if (newest === active && now - active.createdAt >= 1000 * Math.max(deps.rotationInterval - deps.propagationTime, 0)) {
      await createSuccessor(alg, active, now);
      changed = true;
    }
    const touched = records.some((r) => r !== active && r.activatesAt <= now && (r.retiresAt === undefined || r.retiresAt <= now));
    const removed = await retire(records, active, now);
    return { changed: changed || touched, removed };
  }
}
