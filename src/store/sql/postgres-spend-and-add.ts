import type pg from 'pg';
import { grantRowColumns, type SpendAndAdd } from './sql-store.js';
import { arrayTypes, columnArrays } from './postgres-grant-groups.js';
import { isUniqueViolation } from './connectivity-error.js';

/**
 * A token request's commit on PostgreSQL (`Store.commit`: spend the one-time grant, store what it
 * yields) as ONE statement: the consume is an `update … returning` in a data-modifying CTE, and
 * the rows are inserted from one array per column only where that update found its row. A
 * statement is atomic by itself, so this is the transaction of sql-store's general path (begin,
 * consume, one insert per row, commit) in one round trip instead of five for a code redemption
 * (consume, family, refresh token) and four for a refresh.
 *
 * There is no `on conflict` here: a key held by any row, live or expired, makes the statement fail
 * whole with a unique violation, and nothing is written. Only then does the caller take the
 * general path, which keeps the exact rule (a live holder fails the batch, an expired one is
 * replaced). Fresh handles are 256 random bits, so that path is for the pathological case only.
 */
export function postgresSpendAndAdd(pool: pg.Pool): SpendAndAdd {
  const columns = grantRowColumns.join(', ');
  const arrays = grantRowColumns.map((column, i) => `$${i + 3}::${arrayTypes[column]}`).join(', ');
  const spendAndAdd = {
    name: 'svc_spend_and_add',
    text:
      'with spent as (update persisted_grants set consumed_at = $1 where key = $2 and consumed_at is null and expires_at > $1 returning key), ' +
      `added as (insert into persisted_grants (${columns}) select * from unnest(${arrays}) where exists (select 1 from spent) returning key) ` +
      'select (select count(*) from spent)::int as spent',
  };
  // No grant to spend: the rows alone, all or none.
  const addAll = {
    name: 'svc_add_all',
    text: `insert into persisted_grants (${columns}) select * from unnest(${arrays.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) - 2}`)})`,
  };
  return async (consume, rows) => {
    const values = columnArrays(rows);
    try {
      if (consume === undefined) {
        await pool.query({ ...addAll, values });
        return true;
      }
      const result = await pool.query<{ spent: number }>({ ...spendAndAdd, values: [consume.now, consume.key, ...values] });
      return result.rows[0]?.spent === 1;
    } catch (error) {
      if (isUniqueViolation(error)) return 'conflict';
      throw error;
    }
  };
}
