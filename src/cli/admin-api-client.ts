/**
 * The CLI acting on a running service through its admin API (`svc --server <admin URL> ...`,
 * issue 39; docs/guides/admin-api.md) instead of on the database: the token comes from
 * `SVC_ADMIN_TOKEN` (an access token for `svc-admin`), never from a command line, where the
 * shell history and `ps` would show it.
 */
import { CliError } from './user-facing-error.js';

export interface AdminServer {
  readonly url: string;
  readonly token: string;
}

export function adminServer(url: string): AdminServer {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new CliError(`--server takes the admin API's URL, such as http://127.0.0.1:5001, got "${url}".`);
  }
  const token = process.env.SVC_ADMIN_TOKEN;
  if (token === undefined || token === '') {
    throw new CliError('--server needs an admin access token in SVC_ADMIN_TOKEN (client credentials for svc-admin; see docs/guides/admin-api.md).');
  }
  return { url: url.replace(/\/+$/, ''), token };
}

async function get(server: AdminServer, path: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(server.url + path, { headers: { authorization: `Bearer ${server.token}`, accept: 'application/json' } });
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    throw new CliError(`cannot reach the admin API at ${server.url}${code === 'ECONNREFUSED' ? ': nothing listens there (is admin.port set, and the service running?)' : ''}.`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CliError(`${server.url}${path} answered ${res.status} with something other than JSON: is it the admin API?`);
  }
  if (!res.ok) {
    const detail = (body as { detail?: unknown }).detail;
    throw new CliError(`the admin API refused (${res.status}): ${typeof detail === 'string' ? detail : text}`);
  }
  return body;
}

/** Every item of a paginated list, following `next` to the last page. */
export async function readAll<T>(server: AdminServer, path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await get(server, `${path}?limit=200${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`) as { items: T[]; next?: string };
    items.push(...page.items);
    cursor = page.next;
  } while (cursor !== undefined);
  return items;
}
