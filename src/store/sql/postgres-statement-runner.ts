import type { QueryResult } from 'kysely';
import type pg from 'pg';
import { changedRows, type StatementRunner } from './prepared-query.js';

/**
 * Runs the store's per-request statements straight on the pg pool, each as a named (prepared)
 * statement: PostgreSQL parses and plans each text once per connection instead of once per
 * request, and the request skips Kysely's per-query connection wrapper. The SQL text still
 * comes from Kysely (prepared-query.ts), so both dialects keep one query definition.
 */
export function postgresStatementRunner(pool: pg.Pool): StatementRunner {
  // A handful of texts (add, get, consume, update, remove), named once each.
  const names = new Map<string, string>();
  const nameOf = (sql: string): string => {
    let name = names.get(sql);
    if (name === undefined) {
      name = `svc_${names.size}`;
      names.set(sql, name);
    }
    return name;
  };
  const query = (sql: string, parameters: readonly unknown[]) => ({ name: nameOf(sql), text: sql, values: [...parameters] });

  return {
    async execute<R>(sql: string, parameters: readonly unknown[]): Promise<QueryResult<R>> {
      return toResult<R>(await pool.query(query(sql, parameters)));
    },
    async executeAll(statements) {
      // One transaction on one pooled connection, as Kysely's would be.
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('begin');
        for (const [index, { sql, parameters }] of statements.entries()) {
          if (!changedRows(toResult(await client.query(query(sql, parameters))))) {
            await client.query('rollback');
            return index;
          }
        }
        await client.query('commit');
        return undefined;
      } catch (error) {
        try {
          await client.query('rollback');
        } catch (rollbackError) {
          // The connection itself failed: the pool must not hand it out again.
          broken = rollbackError as Error;
        }
        throw error;
      } finally {
        client.release(broken);
      }
    },
    drain: () => {},
  };
}

/** Kysely's shape of a result, as its PostgreSQL driver makes it. */
function toResult<R>(result: pg.QueryResult): QueryResult<R> {
  const writes = result.command === 'INSERT' || result.command === 'UPDATE' || result.command === 'DELETE' || result.command === 'MERGE';
  return { rows: result.rows as R[], ...(writes ? { numAffectedRows: BigInt(result.rowCount ?? 0) } : {}) };
}
