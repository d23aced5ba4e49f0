/**
 * The CLI acting on a running service through its admin API (`svc --server <admin URL> ...`,
 * issue 39; docs/guides/admin-api.md) instead of on the database: the token comes from
 * `SVC_ADMIN_TOKEN` (an access token for `svc-admin`), never from a command line, where the
 * shell history and `ps` would show it. Against an admin API behind mutual TLS (`admin.tls`),
 * the client certificate and key come from `SVC_ADMIN_CERT` and `SVC_ADMIN_KEY` (PEM files, as
 * curl's `--cert` and `--key`) and the CA that issued the listener's certificate from
 * `SVC_ADMIN_CA` (curl's `--cacert`; the system's CAs otherwise); no token is needed then.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { CliError } from './user-facing-error.js';

/** A problem the admin API answered, as the line the CLI prints; `status` for a caller that words some differently. */
export class AdminApiRefusal extends CliError {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** PEM text of the client certificate, its key and the CA the CLI trusts for the listener. */
export interface AdminTls {
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  readonly ca?: string | undefined;
}

export interface AdminServer {
  readonly url: string;
  /** Absent when a client certificate authenticates instead. */
  readonly token: string | undefined;
  readonly tls: AdminTls;
}

function pemFile(variable: string): string | undefined {
  const path = process.env[variable];
  if (path === undefined || path === '') return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(`${variable}: cannot read ${path} (${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message}).`);
  }
}

export function adminServer(url: string): AdminServer {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new CliError(`--server takes the admin API's URL, such as http://127.0.0.1:5001, got "${url}".`);
  }
  const tls: AdminTls = { cert: pemFile('SVC_ADMIN_CERT'), key: pemFile('SVC_ADMIN_KEY'), ca: pemFile('SVC_ADMIN_CA') };
  if ((tls.cert === undefined) !== (tls.key === undefined)) throw new CliError('SVC_ADMIN_CERT and SVC_ADMIN_KEY go together: the client certificate and its private key.');
  if (tls.cert !== undefined && new URL(url).protocol !== 'https:') throw new CliError(`SVC_ADMIN_CERT is set, so --server takes the admin API's https URL, got "${url}".`);
  const token = process.env.SVC_ADMIN_TOKEN === '' ? undefined : process.env.SVC_ADMIN_TOKEN;
  if (token === undefined && tls.cert === undefined) {
    throw new CliError('--server needs an admin access token in SVC_ADMIN_TOKEN (client credentials for svc-admin), or a client certificate in SVC_ADMIN_CERT and SVC_ADMIN_KEY for an admin API behind mutual TLS; see docs/guides/admin-api.md.');
  }
  return { url: url.replace(/\/+$/, ''), token, tls };
}

/** TLS failures a caller can act on, in words: the listener's certificate is not trusted, or the handshake refused ours. */
const tlsProblems: Readonly<Record<string, string>> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate is not from a CA this command trusts (set SVC_ADMIN_CA to the CA that issued it)',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate is not from a CA this command trusts (set SVC_ADMIN_CA to the CA that issued it)',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed (set SVC_ADMIN_CA to it)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate is not from a CA this command trusts (set SVC_ADMIN_CA to the CA that issued it)',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate does not name this host',
  ECONNREFUSED: 'nothing listens there (is admin.port set, and the service running?)',
  EPROTO: 'it does not speak TLS there (is admin.tls set? use http:// otherwise)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'it does not speak TLS there (is admin.tls set? use http:// otherwise)',
};

interface RawAnswer {
  readonly status: number;
  readonly etag: string | undefined;
  readonly text: string;
}

/** One HTTP exchange over Node's client, which (unlike `fetch`) can present a client certificate. */
function exchange(server: AdminServer, method: string, path: string, headers: Record<string, string>, body: string | undefined): Promise<RawAnswer> {
  const url = new URL(server.url + path);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const tls = url.protocol === 'https:' ? { ...(server.tls.ca ? { ca: server.tls.ca } : {}), ...(server.tls.cert ? { cert: server.tls.cert, key: server.tls.key } : {}) } : {};
  return new Promise((resolve, reject) => {
    // `agent: false`: a connection per request, closed after it; a kept-alive one would hold the
    // command's process open until the listener's keep-alive timeout.
    const req = send(url, { method, agent: false, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) }, ...tls }, (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const etag = res.headers.etag;
        resolve({ status: res.statusCode ?? 0, etag: typeof etag === 'string' ? etag : undefined, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
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
  let res: RawAnswer;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (server.token !== undefined) headers.authorization = `Bearer ${server.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
  try {
    res = await exchange(server, method, path, headers, options.body === undefined ? undefined : JSON.stringify(options.body));
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    const problem = tlsProblems[code] ?? (/wrong version number/i.test((err as Error).message) ? tlsProblems.EPROTO : undefined);
    throw new CliError(`cannot reach the admin API at ${server.url}${problem === undefined ? '' : `: ${problem}`}.`);
  }
  const { text } = res;
  const ok = res.status >= 200 && res.status < 300;
  if (res.status === 204) return { status: 204, body: undefined, etag: res.etag };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CliError(`${server.url}${path} answered ${res.status} with something other than JSON: is it the admin API?`);
  }
  if (!ok) {
    const detail = (body as { detail?: unknown }).detail;
    const said = typeof detail === 'string' ? detail : text;
    if ([400, 404, 409, 412].includes(res.status)) {
      const errors = (body as { errors?: Array<{ path: string; message: string }> }).errors;
      throw new AdminApiRefusal(res.status, errors === undefined || errors.length === 0 ? said : `${said}\n${errors.map((e) => `  ${e.path === '' ? '' : `${e.path}: `}${e.message}`).join('\n')}`);
    }
    throw new AdminApiRefusal(res.status, `the admin API refused (${res.status}): ${said}`);
  }
  return { status: res.status, body, etag: res.etag };
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
