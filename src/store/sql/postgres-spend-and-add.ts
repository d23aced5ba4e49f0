import type pg from 'pg';
import { grantRowColumns, type GrantParams, type SpendAndAdd } from './sql-store.js';
import { arrayTypes, columnArrays } from './postgres-grant-groups.js';
import { isDeadlock, isUniqueViolation } from './connectivity-error.js';
import { turnGroups } from './turn-groups.js';

/**
 * A token request's commit on PostgreSQL (`Store.commit`: spend the one-time grant, store what it
 * yields) in one statement, and the commits of one turn of the event loop in the same one (issue
 * 40): the consumes are one `update … from unnest(…) returning` in a data-modifying CTE, and the
 * rows are inserted from one array per column, each only where its own request's update found
 * its row. A statement is atomic by itself, so this is the transaction of sql-store's general
 * path (begin, consume, one insert per row, commit) for every request of the turn in one round
 * trip, instead of five round trips per code redemption (consume, family, refresh token) and
 * four per refresh; a turn of 64 redemptions sends one statement instead of 64.
 *
 * A grant spent twice in one turn never shares a statement (`keyOf`): the second request goes in
 * the next statement, which PostgreSQL orders after the first as it would two nodes' updates, and
 * finds the grant consumed. Two nodes spending one grant at once are ordered by its row lock, and
 * the later update, re-checking `consumed_at is null`, loses. Each statement takes its locks in
 * key order, so two that share grants wait for each other instead of deadlocking; should
 * PostgreSQL still report a deadlock, its requests take the general path below, one grant each.
 *
 * There is no `on conflict` here: a key held by any row, live or expired, makes the statement fail
 * whole with a unique violation, and nothing of it is written. Only then does each of its
 * requests take the general path, which keeps the exact rule (a live holder fails that request,
 * an expired one is replaced). Fresh handles are 256 random bits, so that path is for the
 * pathological case only.
 */
export function postgresSpendAndAdd(pool: pg.Pool): { spendAndAdd: SpendAndAdd; drain(): Promise<void> } {
  const columns = grantRowColumns.join(', ');
  const arraysFrom = (first: number): string => grantRowColumns.map((column, i) => `$${i + first}::${arrayTypes[column]}`).join(', ');
  // $1 and $2: each request's grant to spend (stored key) and its time; $3: for each row to add,
  // the stored key of the grant whose spending it depends on; then one array per column.
  const spendAndAddTurn = {
    name: 'svc_spend_and_add',
    text:
      'with spends as (select * from unnest($1::text[], $2::bigint[]) as s(key, spent_at)), ' +
      // `key = any($1)`: the primary key's index condition, as in the grouped read.
      'spent as (update persisted_grants g set consumed_at = s.spent_at from spends s ' +
      'where g.key = any($1::text[]) and g.key = s.key and g.consumed_at is null and g.expires_at > s.spent_at returning g.key), ' +
      `added as (insert into persisted_grants (${columns}) select ${grantRowColumns.map((column) => `r.${column}`).join(', ')} ` +
      `from unnest($3::text[], ${arraysFrom(4)}) as r(depends_on, ${columns}) where r.depends_on in (select key from spent)) ` +
      'select key from spent',
  };
  // No grant to spend: the rows alone, all or none.
  const addAll = { name: 'svc_add_all', text: `insert into persisted_grants (${columns}) select * from unnest(${arraysFrom(1)})` };

  const spends = turnGroups<Spend, boolean | 'conflict'>({
    // Bounds one statement's parameter arrays; more in a turn make several statements.
    max: 200,
    keyOf: (spend) => spend.key,
    async send(group) {
      // In key order, as the index scan of `key = any($1)` locks them.
      const ordered = [...group].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const rows = ordered.flatMap((spend) => spend.rows);
      const dependsOn = ordered.flatMap((spend) => spend.rows.map(() => spend.key));
      try {
        const result = await pool.query<{ key: string }>({
          ...spendAndAddTurn,
          values: [ordered.map((spend) => spend.key), ordered.map((spend) => spend.now), dependsOn, ...columnArrays(rows)],
        });
        const spent = new Set(result.rows.map((row) => row.key));
        return group.map((spend) => spent.has(spend.key));
      } catch (error) {
        // Nothing of the statement was written: each request decides on its own.
        if (isUniqueViolation(error) || isDeadlock(error)) return group.map(() => 'conflict' as const);
        throw error;
      }
    },
  });

  return {
    async spendAndAdd(consume, rows) {
      if (consume !== undefined) return spends.submit({ key: consume.key, now: consume.now, rows });
      try {
        await pool.query({ ...addAll, values: columnArrays(rows) });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return 'conflict';
        throw error;
      }
    },
    drain: spends.drain,
  };
}

/** One request's commit: the stored key of the grant it spends, when, and the rows it adds. */
interface Spend {
  readonly key: string;
  readonly now: number;
  readonly rows: readonly GrantParams[];
}
