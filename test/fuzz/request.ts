/** One fuzzed HTTP request and how it is sent: node:http, so any method and repeated headers go out as generated. */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface FuzzRequest {
  /** The seed it was made from, e.g. "token: client_credentials (Basic)". */
  readonly seed: string;
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: Buffer | undefined;
}

export interface FuzzResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly ms: number;
}

export type SendOutcome = FuzzResponse | { readonly failure: 'timeout' | 'no answer' | 'not sendable'; readonly detail: string; readonly ms: number };

const agent = new Agent({ keepAlive: true, maxSockets: 4 });
const maxBodyBytes = 4 * 1024 * 1024;

export function form(params: ReadonlyArray<readonly [string, string]>): Buffer {
  return Buffer.from(new URLSearchParams(params as Array<[string, string]>).toString());
}

function implicitHeaders(port: number, req: FuzzRequest): Array<[string, string]> {
  const has = (name: string) => req.headers.some(([n]) => n.toLowerCase() === name);
  const headers: Array<[string, string]> = has('host') ? [] : [['host', `127.0.0.1:${port}`]];
  if (req.body !== undefined && !has('content-length') && !has('transfer-encoding')) headers.push(['content-length', String(req.body.length)]);
  return headers;
}

export function send(port: number, req: FuzzRequest, timeoutMs: number): Promise<SendOutcome> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: SendOutcome) => {
      if (!settled) (settled = true), resolve(outcome);
    };
    let client;
    try {
      client = httpRequest({
        host: '127.0.0.1', port, agent, method: req.method, path: req.path,
        // An array keeps repeated headers as generated; Node then adds neither Host nor, for a
        // GET with a body, any framing: both are added here unless the case set its own.
        headers: [...implicitHeaders(port, req), ...req.headers].flat() as unknown as Record<string, string>,
      });
    } catch (err) {
      // Node's client refuses some methods, paths and header values outright; raw cases cover those bytes.
      done({ failure: 'not sendable', detail: (err as Error).message, ms: 0 });
      return;
    }
    const timer = setTimeout(() => {
      done({ failure: 'timeout', detail: `no complete answer within ${timeoutMs} ms`, ms: elapsed() });
      client.destroy();
    }, timeoutMs);
    client.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      done({ failure: 'no answer', detail: `${err.code ?? ''} ${err.message}`, ms: elapsed() });
    });
    client.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= maxBodyBytes) chunks.push(c);
      });
      res.on('error', () => undefined);
      res.on('end', () => {
        clearTimeout(timer);
        done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: elapsed() });
      });
    });
    client.end(req.body);
  });
}

export function closeAgent(): void {
  agent.destroy();
}
