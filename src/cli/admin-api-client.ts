/**
 * The CLI acting on a running service through its admin API (`svc --server <admin URL> ...`,
 * issue 39; docs/guides/admin-api.md) instead of on the database: the token comes from
 * `SVC_ADMIN_TOKEN` (an access token for `svc-admin`), never from a command line, where the
 * shell history and `ps` would show it.
 */
import { CliError } from './user-facing-error.js';

/** A problem the admin API answered, as the line the CLI prints; `status` for a caller that words some differently. */
export class AdminApiRefusal extends CliError {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

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

/** An answer of the admin API: its JSON body (absent for 204) and its ETag. */
export interface AdminAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly etag: string | undefined;
}

/**
 * One request to the admin API. A problem it answers (RFC 9457) becomes one line: the refusal's
 * own sentence when the request was heard and refused (the same sentence the command prints on
 * the database), with the status when the token was not accepted.
 */
export async function call(server: AdminServer, method: string, path: string, options: { body?: unknown; ifMatch?: string } = {}): Promise<AdminAnswer> {
  let res: Response;
  const headers: Record<string, string> = { authorization: `Bearer ${server.token}`, accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
  try {
    res = await fetch(server.url + path, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    throw new CliError(`cannot reach the admin API at ${server.url}${code === 'ECONNREFUSED' ? ': nothing listens there (is admin.port set, and the service running?)' : ''}.`);
  }
  const text = await res.text();
  if (res.status === 204) return { status: 204, body: undefined, etag: res.headers.get('etag') ?? undefined };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CliError(`${server.url}${path} answered ${res.status} with something other than JSON: is it the admin API?`);
  }
  if (!res.ok) {
    const detail = (body as { detail?: unknown }).detail;
    const said = typeof detail === 'string' ? detail : text;
    if ([400, 404, 409, 412].includes(res.status)) {
      const errors = (body as { errors?: Array<{ path: string; message: string }> }).errors;
      throw new AdminApiRefusal(res.status, errors === undefined || errors.length === 0 ? said : `${said}\n${errors.map((e) => `  ${e.path === '' ? '' : `${e.path}: `}${e.message}`).join('\n')}`);
    }
    throw new AdminApiRefusal(res.status, `the admin API refused (${res.status}): ${said}`);
  }
  return { status: res.status, body, etag: res.headers.get('etag') ?? undefined };
}

async function get(server: AdminServer, path: string): Promise<unknown> {
  return (await call(server, 'GET', path)).body;
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
