/**
 * Clients for mutual TLS tests: Node's https client and curl, each presenting a client
 * certificate (or none) and trusting the test's server CA. Both answer status and parsed JSON.
 */
import { execFile } from 'node:child_process';
import { request } from 'node:https';

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Record<string, unknown>;
}

export interface ClientTls {
  /** PEM of the CA that issued the server's certificate. */
  readonly ca: string;
  /** PEM certificate and key the client presents; none when absent. */
  readonly cert?: string;
  readonly key?: string;
  /** The local address to connect from (Linux routes all of 127.0.0.0/8 to lo). */
  readonly from?: string;
}

/** POSTs a form over https with Node's client; a fresh connection each time (`agent: false`). */
export function httpsPost(url: string, form: Record<string, string>, tls: ClientTls, headers: Record<string, string> = {}): Promise<Answer> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        ca: tls.ca,
        ...(tls.cert ? { cert: tls.cert, key: tls.key } : {}),
        ...(tls.from ? { localAddress: tls.from } : {}),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** GETs JSON over https (discovery). */
export function httpsGetJson(url: string, tls: ClientTls): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, ca: tls.ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** `curl` with the given arguments plus `-sS -w '\n%{http_code}'`; resolves the status and JSON body. */
export function curl(args: readonly string[]): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-sS', '-w', '\n%{http_code}', ...args], { timeout: 20_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`curl failed: ${stderr || err.message}`));
      const cut = stdout.lastIndexOf('\n');
      const text = stdout.slice(0, cut);
      resolve({ status: Number(stdout.slice(cut + 1)), body: text ? (JSON.parse(text) as Record<string, unknown>) : {} });
    });
  });
}
