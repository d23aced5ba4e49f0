/**
 * A `fetch` over Node's https client that presents a client certificate and trusts the test's
 * server CA: what a client library (oauth4webapi's `customFetch`) and the test browser use to
 * talk to a service that terminates mutual TLS itself. Global `fetch` cannot present one without
 * an undici dispatcher, which is not a dependency. Never follows redirects (`redirect: manual`).
 */
import { request } from 'node:https';
import type { ClientTls } from './tls-client.js';

type Body = string | URLSearchParams | Uint8Array | null | undefined;

export function tlsFetch(tls: ClientTls): typeof fetch {
  return ((input: string | URL | Request, init: RequestInit = {}) => new Promise<Response>((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    const body = init.body as Body;
    const payload = body === null || body === undefined ? undefined : body instanceof URLSearchParams ? body.toString() : body;
    const headers = Object.fromEntries(new Headers(init.headers));
    if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
    const req = request(url, {
      method: init.method ?? 'GET', agent: false, ca: tls.ca, headers,
      ...(tls.cert ? { cert: tls.cert, key: tls.key } : {}),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const answer = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (Array.isArray(value)) value.forEach((v) => answer.append(name, v));
          else if (value !== undefined) answer.set(name, value);
        }
        const status = res.statusCode ?? 0;
        const response = new Response([204, 205, 304].includes(status) ? null : Buffer.concat(chunks), { status, headers: answer });
        Object.defineProperty(response, 'url', { value: url.href });
        resolve(response);
      });
    });
    req.on('error', reject);
    req.end(payload);
  })) as typeof fetch;
}
