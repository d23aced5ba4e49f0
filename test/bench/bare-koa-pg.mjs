// The PostgreSQL ceiling: the bare-Koa floor (bare-koa.mjs) plus the one statement a reference
// token costs the service, the same INSERT ... ON CONFLICT into a table with the same columns
// and indexes (src/store/sql/migrations.ts), as a named (prepared) statement over a pool of the
// service's default size. No client authentication, no token: what Koa + pg reach on this
// machine, so the service's PostgreSQL rows can say what share of it they reach.
// Usage: node test/bench/bare-koa-pg.mjs <port> <postgres url>; prints "listening <url>" when ready.
import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import pg from 'pg';
import { createTable, insertGrant, referenceTokenRow } from './postgres-statements.mjs';
import { listen } from './bare-koa-listen.mjs';

const port = Number(process.argv[2] ?? 0);
const pool = new pg.Pool({ connectionString: process.argv[3], max: 10 });

await pool.query(createTable);

const router = new Router();
router.post('/connect/token', bodyParser({ enableTypes: ['form'] }), async (ctx) => {
  const { grant_type: grantType } = ctx.request.body;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  if (grantType !== 'client_credentials') {
    ctx.status = 400;
    ctx.body = '{"error":"unsupported_grant_type"}';
    return;
  }
  const key = randomBytes(32).toString('base64url');
  await pool.query({ ...insertGrant, values: referenceTokenRow(key) });
  ctx.body = JSON.stringify({ access_token: key, token_type: 'Bearer', expires_in: 3600, scope: 'api1.read' });
});

listen(router, port, () => pool.end());
