// The statements a reference token and its introspection cost the service on PostgreSQL, as
// src/store/sql/migrations.ts and sql-store.ts make them: the table with the same columns and
// indexes, the INSERT … ON CONFLICT, and the read by key. Shared by the PostgreSQL ceiling over
// HTTP (bare-koa-pg.mjs) and the tight loop without HTTP (postgres-loop.ts).

export const createTable = `
  create table if not exists persisted_grants (
    key text primary key, type text not null, client_id text not null, subject_id text, session_id text,
    created_at bigint not null, expires_at bigint not null, consumed_at bigint, data text not null);
  create index if not exists persisted_grants_expires_at on persisted_grants (expires_at);
  create index if not exists persisted_grants_subject_client_type on persisted_grants (subject_id, client_id, type) where subject_id is not null;
  create index if not exists persisted_grants_session_id on persisted_grants (session_id) where session_id is not null;`;

/** Prepared once per connection by name, as the service's statements are. */
export const insertGrant = {
  name: 'add-grant',
  text:
    'insert into persisted_grants (key, type, client_id, subject_id, session_id, created_at, expires_at, consumed_at, data) ' +
    'values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (key) do update set type = excluded.type, client_id = excluded.client_id, ' +
    'subject_id = excluded.subject_id, session_id = excluded.session_id, created_at = excluded.created_at, expires_at = excluded.expires_at, ' +
    'consumed_at = excluded.consumed_at, data = excluded.data where persisted_grants.expires_at <= excluded.created_at',
};

export const selectGrant = { name: 'get-grant', text: 'select * from persisted_grants where key = $1' };

const data = JSON.stringify({ iss: 'http://127.0.0.1', client_id: 'm2m-reference', scope: 'api1.read', jti: 'x'.repeat(22) });

/** The parameters of one reference token's row under `key`. */
export function referenceTokenRow(key, now = Date.now()) {
  return [key, 'reference_token', 'm2m-reference', null, null, now, now + 3_600_000, null, data];
}
