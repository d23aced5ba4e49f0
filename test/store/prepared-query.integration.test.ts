import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareQuery } from '../../src/store/sql/prepared-query.js';

interface Db {
  t: { a: string; b: number; c: string };
}

describe('prepareQuery', () => {
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
  afterEach(async () => {
    await db.schema.dropTable('t').ifExists().execute();
  });

  it('binds named parameters in the order the compiled SQL uses them', async () => {
    await db.schema.createTable('t').addColumn('a', 'text').addColumn('b', 'integer').addColumn('c', 'text').execute();
    // Values in one order, names declared in another: the binding follows the SQL.
    const insert = prepareQuery<{ c: string; a: string; b: number }, never, Db>(db, ['c', 'a', 'b'], (p) =>
      db.insertInto('t').values({ b: p.b, a: p.a, c: p.c }),
    );
    const find = prepareQuery<{ min: number; a: string }, Db['t'], Db>(db, ['min', 'a'], (p) =>
      db.selectFrom('t').selectAll().where('a', '=', p.a).where('b', '>', p.min),
    );
    await insert({ c: 'see', a: 'x', b: 2 });
    await insert({ c: 'sea', a: 'x', b: 5 });
    expect((await find({ a: 'x', min: 3 })).rows).toEqual([{ a: 'x', b: 5, c: 'sea' }]);
    expect((await find({ a: 'y', min: 0 })).rows).toEqual([]);
  });

  it('refuses a query with a parameter it was not told about', () => {
    expect(() =>
      prepareQuery<{ a: string }, never, Db>(db, ['a'], (p) => db.selectFrom('t').selectAll().where('a', '=', p.a).where('b', '=', 7)),
    ).toThrow(/a parameter that is not one of a/);
  });
});
