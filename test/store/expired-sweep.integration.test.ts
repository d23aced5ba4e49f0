/**
 * The expired-record sweep on each backend (issue 39, "a database that stays small"): every kind
 * of record the service stores with an expiry, thousands of them expired and hundreds live; one
 * sweep removes every expired row in bounded batches, keeps every live one, lets only one of two
 * nodes delete, and the metrics report the backlog it found.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/http/metrics.js';
import { startExpiredGrantSweeper, type ExpiredGrantSweeper } from '../../src/store/expired-grant-sweeper.js';
import type { PersistedGrant, Store } from '../../src/store/store.js';
import { manualClock } from '../device/helpers.js';
import { backends, T0, type TestDatabase } from './backends.js';

/** Every type the service writes with an expiry (codes, tokens, sessions, used jtis, device and PAR records, leases). */
const KINDS = [
  'authorization_code', 'refresh_token', 'refresh_family', 'reference_token', 'sign_in_session', 'sign_in_session_client', 'sign_in_session_code',
  'authorization_interaction', 'assertion_jti', 'dpop_jti', 'device_code', 'user_code',
  'pushed_authorization_request', 'device_failed_attempts', 'device_cookie_secret', 'lease',
] as const;
const EXPIRED_PER_KIND = 250;
const LIVE_PER_KIND = 40;
const BATCH = 300;

const grant = (kind: string, i: number, expiresAt: number): PersistedGrant => ({
  key: `${kind}:${expiresAt < T0 ? 'expired' : 'live'}:${i}`,
  type: kind,
  clientId: 'app',
  subjectId: i % 2 ? 'alice' : undefined,
  sessionId: i % 3 ? `session-${i}` : undefined,
  createdAt: expiresAt - 3_600_000,
  expiresAt,
  consumedAt: i % 5 ? undefined : expiresAt - 1000,
  data: '{}',
});

async function fill(store: Store): Promise<{ live: string[]; expired: string[] }> {
  const rows: PersistedGrant[] = [];
  for (const kind of KINDS) {
    // Expired up to an hour ago, oldest first and last, so the order of insertion is not the order of expiry.
    for (let i = 0; i < EXPIRED_PER_KIND; i++) rows.push(grant(kind, i, T0 - 1 - ((i * 7919) % 3_600_000)));
    // Live: one expiring exactly now (`expiresAt < now` is what expired means), the rest later.
    for (let i = 0; i < LIVE_PER_KIND; i++) rows.push(grant(kind, i, T0 + i * 60_000));
  }
  for (let i = 0; i < rows.length; i += 500) await store.commit({ add: rows.slice(i, i + 500) });
  return {
    live: rows.filter((row) => row.expiresAt >= T0).map((row) => row.key),
    expired: rows.filter((row) => row.expiresAt < T0).map((row) => row.key),
  };
}

/** The store with every `removeExpired` answer recorded: one entry per delete statement. */
function counted(store: Store): Store & { batches: number[] } {
  const batches: number[] = [];
  return Object.assign(Object.create(store) as Store, {
    batches,
    removeExpired: async (now: number, batchSize: number) => {
      const removed = await store.removeExpired(now, batchSize);
      batches.push(removed);
      return removed;
    },
  });
}

async function metricValues(metrics: ReturnType<typeof createMetrics>, name: string): Promise<Record<string, number>> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return Object.fromEntries((metric?.values ?? []).map((v) => [String(v.labels.kind ?? ''), v.value]));
}

const TOTAL_EXPIRED = KINDS.length * EXPIRED_PER_KIND;

describe.each(backends)('the expired-record sweep on $name', (backend) => {
  let database: TestDatabase | undefined;
  const sweepers: ExpiredGrantSweeper[] = [];
  afterEach(async () => {
    sweepers.splice(0).forEach((s) => s.stop());
    await database?.drop();
    database = undefined;
  });

  const start = (store: Store, onSweep?: Parameters<typeof startExpiredGrantSweeper>[0]['onSweep']) => {
    const sweeper = startExpiredGrantSweeper({
      store, intervalSeconds: 60, batchSize: BATCH, clock: manualClock(T0), onError: (e) => { throw e; }, shared: true,
      ...(onSweep ? { onSweep } : {}),
    });
    sweepers.push(sweeper);
    return sweeper;
  };

  it.skipIf(backend.skipReason)('removes every expired row of every kind in bounded batches, keeps every live one, and reports the backlog', async () => {
    database = await backend.createDatabase();
    const store = database.open();
    await store.migrate();
    const { live } = await fill(store);
    expect(await store.countExpired(T0)).toEqual(Object.fromEntries(KINDS.map((kind) => [kind, EXPIRED_PER_KIND])));

    const metrics = createMetrics();
    const node = counted(store);
    const result = await start(node, (r) => metrics.swept(r)).sweepNow();

    expect(result.removed).toBe(TOTAL_EXPIRED);
    // Full batches until one comes back short, never more than the limit in one statement.
    expect(node.batches).toEqual([...Array<number>(Math.floor(TOTAL_EXPIRED / BATCH)).fill(BATCH), TOTAL_EXPIRED % BATCH]);
    expect(await store.countExpired(T0)).toEqual({});
    const kept = await Promise.all(live.map(async (key) => (await store.get(key))?.key));
    expect(kept).toEqual(live);
    const raw = await database.rawGrantRows();
    // The live rows and the sweep's own lease, nothing else.
    if (raw) expect(raw).toHaveLength(live.length + 1);

    expect(await metricValues(metrics, 'svc_store_expired_rows')).toEqual(Object.fromEntries(KINDS.map((kind) => [kind, EXPIRED_PER_KIND])));
    expect((await metricValues(metrics, 'svc_store_expired_rows_removed_total'))['']).toBe(TOTAL_EXPIRED);

    // The next tick finds no backlog: every kind reads 0, not its last value.
    const clock = manualClock(T0);
    const next = startExpiredGrantSweeper({ store, intervalSeconds: 60, clock, onError: () => {}, shared: true, onSweep: (r) => metrics.swept(r) });
    sweepers.push(next);
    await next.sweepNow();
    expect(await metricValues(metrics, 'svc_store_expired_rows')).toEqual(Object.fromEntries(KINDS.map((kind) => [kind, 0])));
  });

  // Two nodes share a database, not a memory store: the case exists for SQLite and PostgreSQL only.
  if (backend.name !== 'memory') it.skipIf(backend.skipReason)('lets one of two nodes on the same database sweep per interval', async () => {
    database = await backend.createDatabase();
    const first = database.open();
    await first.migrate();
    await fill(first);
    const second = database.open();

    const [a, b] = await Promise.all([start(first).sweepNow(), start(second).sweepNow()]);

    expect([a.removed, b.removed].sort((x, y) => x - y)).toEqual([0, TOTAL_EXPIRED]);
    expect(Math.min(a.batches, b.batches)).toBe(0);
    expect(await second.countExpired(T0)).toEqual({});
  });
});
