/**
 * The counters in PostgreSQL (`counters: "store"`), in the store's own database (table
 * `rate_counters`, migration 0003), over a small pool of its own so a flood of guesses cannot
 * take the connections token issuance needs. Every operation is one statement: the row lock of
 * `INSERT ... ON CONFLICT DO UPDATE` serializes concurrent failures on one key, so nodes never
 * lose a count, and a gated count refuses a key another node has just blocked.
 */
import pg from 'pg';
import type { CounterStore } from './counter-store.js';

export interface PostgresCountersOptions {
  /** Called when an idle pooled connection fails (the pool drops it). */
  onPoolError?: (error: Error) => void;
}

const num = (v: unknown): number => Number(v);

/** The failure count after this one: a forgotten counter starts again from 1. */
const nextFailures = 'CASE WHEN c.expires_at < $4 THEN 1 ELSE c.failures + 1 END';
/** `backoffDelayMs` of rate-limits.ts, in SQL: 1 s at the threshold, doubling up to maxDelay. */
const blockedUntil = (failures: string, threshold: string): string =>
  `CASE WHEN ${failures} >= ${threshold} THEN $4 + LEAST($6::bigint, power(2, LEAST(${failures} - ${threshold}, 20))::bigint) * 1000 ELSE 0 END`;

const countSql = `
WITH gate AS (
  SELECT coalesce(max(blocked_until), 0)::bigint AS until FROM rate_counters WHERE key = ANY($3::text[]) AND expires_at >= $4
), counted AS (
  INSERT INTO rate_counters AS c (key, failures, threshold, last_at, blocked_until, expires_at)
  SELECT i.key, 1, i.threshold, $4, ${blockedUntil('1', 'i.threshold')}, GREATEST($4, ${blockedUntil('1', 'i.threshold')}) + $7
  FROM unnest($1::text[], $2::int[]) AS i(key, threshold)
  WHERE (SELECT until FROM gate) <= $4
  ON CONFLICT (key) DO UPDATE SET
    failures = ${nextFailures},
    threshold = excluded.threshold,
    last_at = $4,
    blocked_until = ${blockedUntil(nextFailures, 'excluded.threshold')},
    expires_at = GREATEST($4, ${blockedUntil(nextFailures, 'excluded.threshold')}) + $7
  WHERE NOT $5::boolean OR c.blocked_until <= $4 OR c.expires_at < $4
  RETURNING 1
)
SELECT (SELECT until FROM gate) AS until, (SELECT count(*) FROM counted) AS counted`;

const windowHitSql = `
INSERT INTO rate_counters AS c (key, failures, threshold, last_at, blocked_until, expires_at)
VALUES ($1, 1, 0, $2::bigint, $2::bigint + $3::bigint, $2::bigint + $3::bigint)
ON CONFLICT (key) DO UPDATE SET
  failures = CASE WHEN c.expires_at <= $2 THEN 1 ELSE c.failures + 1 END,
  last_at = $2,
  blocked_until = CASE WHEN c.expires_at <= $2 THEN $2 + $3 ELSE c.blocked_until END,
  expires_at = CASE WHEN c.expires_at <= $2 THEN $2 + $3 ELSE c.expires_at END
RETURNING failures, expires_at`;

const sweepBatchSql = `
DELETE FROM rate_counters WHERE key IN (
  SELECT key FROM rate_counters WHERE expires_at < $1 ORDER BY expires_at LIMIT $2
)`;

export function openPostgresCounters(url: string, options: PostgresCountersOptions = {}): CounterStore {
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    // Short bounds: a caller waiting on an unreachable counter store gets its 503 quickly.
    connectionTimeoutMillis: 2000,
    query_timeout: 3000,
    statement_timeout: 3000,
  });
  const onError = options.onPoolError ?? (() => {});
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));

  return {
    name: 'PostgreSQL',
    async check(keys, now) {
      const { rows } = await pool.query(
        'SELECT coalesce(max(blocked_until), 0) AS until, count(*) AS live FROM rate_counters WHERE key = ANY($1::text[]) AND expires_at >= $2',
        [keys, now],
      );
      return { waitMs: Math.max(0, num(rows[0].until) - now), counted: num(rows[0].live) > 0 };
    },
    async count(failures, now, rule, gate) {
      const { rows } = await pool.query(countSql, [
        failures.map((f) => f.key), failures.map((f) => f.threshold), gate ?? [], now, gate !== undefined, rule.maxDelay, rule.window * 1000,
      ]);
      const wait = num(rows[0].until) - now;
      if (wait > 0) return wait;
      // Another node blocked one of the keys between our read and our count: wait its smallest step.
      return num(rows[0].counted) < failures.length ? 1000 : 0;
    },
    async reset(keys) {
      await pool.query('DELETE FROM rate_counters WHERE key = ANY($1::text[])', [keys]);
    },
    async windowHit(key, now, windowMs) {
      const { rows } = await pool.query(windowHitSql, [key, now, windowMs]);
      return { count: num(rows[0].failures), endsAt: num(rows[0].expires_at) };
    },
    async windowPeek(key, now) {
      const { rows } = await pool.query('SELECT failures, expires_at FROM rate_counters WHERE key = $1 AND expires_at > $2', [key, now]);
      return rows[0] ? { count: num(rows[0].failures), endsAt: num(rows[0].expires_at) } : undefined;
    },
    // In bounded batches over `rate_counters_expires_at`, like the grant sweep
    // (src/store/expired-grant-sweeper.ts): a flood of guesses leaves many rows, and one
    // unbounded DELETE would hold their row locks (and the counting upserts behind them) at once.
    async sweep(now, batchSize = 500) {
      let removed = 0;
      for (;;) {
        const { rowCount } = await pool.query(sweepBatchSql, [now, batchSize]);
        removed += rowCount ?? 0;
        if ((rowCount ?? 0) < batchSize) return removed;
      }
    },
    close: () => pool.end(),
  };
}
