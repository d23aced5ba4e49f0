// The PostgreSQL ceiling: the bare-Koa floor (bare-koa.mjs) plus the one statement a reference
// token costs the service, the same INSERT ... ON CONFLICT into a table with the same columns
// and indexes (src/store/sql/migrations.ts), as a named (prepared) statement over a pool of the
// service's default size. No client authentication, no token: what Koa + pg reach on this
// machine, so the service's PostgreSQL rows can say what share of it they reach.
// Usage: node test/bench/bare-koa-pg.mjs <port> <postgres url>; prints "listening <url>" when ready.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import pg from 'pg';

const port = Number(process.argv[2] ?? 0);
const pool = new pg.Pool({ connectionString: process.argv[3], max: 10 });

await pool.query(`
  create table if not exists persisted_grants (
    key text primary key, type text not null, client_id text not null, subject_id text, session_id text,
    created_at bigint not null, expires_at bigint not null, consumed_at bigint, data text not null);
  create index if not exists persisted_grants_expires_at on persisted_grants (expires_at);
  create index if not exists persisted_grants_subject_client_type on persisted_grants (subject_id, client_id, type) where subject_id is not null;
  create index if not exists persisted_grants_session_id on persisted_grants (session_id) where session_id is not null;`);

const insert = {
  name: 'add-grant',
  text:
    'insert into persisted_grants (key, type, client_id, subject_id, session_id, created_at, expires_at, consumed_at, data) ' +
    'values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (key) do update set type = excluded.type, client_id = excluded.client_id, ' +
    'subject_id = excluded.subject_id, session_id = excluded.session_id, created_at = excluded.created_at, expires_at = excluded.expires_at, ' +
    'consumed_at = excluded.consumed_at, data = excluded.data where persisted_grants.expires_at <= excluded.created_at',
};
const data = JSON.stringify({ iss: 'http://127.0.0.1', client_id: 'm2m-reference', scope: 'api1.read', jti: 'x'.repeat(22) });

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
  const now = Date.now();
  await pool.query({ ...insert, values: [key, 'reference_token', 'm2m-reference', null, null, now, now + 3_600_000, null, data] });
  ctx.body = JSON.stringify({ access_token: key, token_type: 'Bearer', expires_in: 3600, scope: 'api1.read' });
});

const app = new Koa();
app.use(router.routes());
const server = createServer(app.callback());
server.keepAliveTimeout = 5_000;
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${server.address().port}\n`);
});
process.once('SIGTERM', () => {
  server.close(() => pool.end().then(() => process.exit(0)));
  server.closeIdleConnections();
});
