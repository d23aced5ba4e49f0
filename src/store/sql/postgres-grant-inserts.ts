import type pg from 'pg';
import type { GrantInserter, GrantParams } from './sql-store.js';

/**
 * Group insert for PostgreSQL: every grant added in one turn of the event loop (reference
 * tokens, DPoP and assertion `jti`s, refresh tokens) goes to the server as one
 * `INSERT … SELECT FROM unnest(…)`, one prepared statement with one array per column. Each
 * caller is answered after that statement commits, with whether its own row was stored.
 *
 * A row costs the pg driver about 42 µs of the service's CPU when sent on its own (encode,
 * round trip, parse, promise) and under 8 µs in a group of 64; the server writes one WAL
 * commit per group instead of one per row. Measured with 64 inserts in flight on a pool of 10
 * (test/bench/postgres-loop.mjs's statements): 11,800 against 46,000 rows/s.
 *
 * Semantics stay those of the single-row `add` in sql-store.ts: a key held by a live grant is
 * refused (RETURNING leaves it out), an expired holder is replaced. Two rows with one key in
 * one turn cannot share a statement (ON CONFLICT DO UPDATE may touch a row once), so a repeated
 * key starts another statement, which PostgreSQL orders after the first as it would two nodes'
 * inserts: one of them is stored.
 * A group that fails (the server went away) rejects every caller in it: the statement is
 * atomic, so none of its rows was stored.
 */
export function postgresGrantInserts(pool: pg.Pool): GrantInserter {
  const statement = {
    name: 'svc_add_grants',
    text:
      'insert into persisted_grants (key, type, client_id, subject_id, session_id, created_at, expires_at, consumed_at, data) ' +
      'select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::text[]) ' +
      'on conflict (key) do update set type = excluded.type, client_id = excluded.client_id, subject_id = excluded.subject_id, ' +
      'session_id = excluded.session_id, created_at = excluded.created_at, expires_at = excluded.expires_at, ' +
      'consumed_at = excluded.consumed_at, data = excluded.data ' +
      'where persisted_grants.expires_at <= excluded.created_at ' +
      'returning key',
  };
  // Bounds one statement's parameter arrays; more rows in a turn make several groups.
  const maxGroup = 500;
  let waiting: PendingInsert[] = [];
  const inFlight = new Set<Promise<void>>();

  function flush(): void {
    const rows = waiting;
    waiting = [];
    let group: PendingInsert[] = [];
    const keys = new Set<string>();
    for (const row of rows) {
      if (group.length === maxGroup || keys.has(row.params.key)) {
        send(group);
        group = [];
        keys.clear();
      }
      keys.add(row.params.key);
      group.push(row);
    }
    if (group.length > 0) send(group);
  }

  function send(group: PendingInsert[]): void {
    const values = [
      group.map((row) => row.params.key),
      group.map((row) => row.params.type),
      group.map((row) => row.params.clientId),
      group.map((row) => row.params.subjectId),
      group.map((row) => row.params.sessionId),
      group.map((row) => row.params.createdAt),
      group.map((row) => row.params.expiresAt),
      group.map((row) => row.params.consumedAt),
      group.map((row) => row.params.data),
    ];
    const sent = pool.query<{ key: string }>({ ...statement, values }).then(
      (result) => {
        const stored = new Set(result.rows.map((row) => row.key));
        for (const row of group) row.resolve(stored.has(row.params.key));
      },
      (error: unknown) => {
        for (const row of group) row.reject(error);
      },
    );
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  }

  function enqueue(row: PendingInsert): void {
    if (waiting.length === 0) setImmediate(flush);
    waiting.push(row);
  }

  return {
    insert: (params) => new Promise<boolean>((resolve, reject) => enqueue({ params, resolve, reject })),
    async drain() {
      flush();
      await Promise.allSettled([...inFlight]);
    },
  };
}

interface PendingInsert {
  readonly params: GrantParams;
  resolve(stored: boolean): void;
  reject(error: unknown): void;
}
