/** Raw HTTP over TCP, for what `fetch` will not send (repeated headers, unknown methods, broken framing) or must not wait for. */
import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawReply {
  raw: string;
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Writes `request` and reads everything the server answers until it closes the connection. */
export function rawRequest(url: string, request: string | Buffer, timeoutMs = 5000): Promise<RawReply> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    // The server may close while we still write.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split(/\r\n\r\n(.*)/s);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ raw: text, status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.write(request);
  });
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/**
 * POSTs a form from a chosen local address. Linux routes all of 127.0.0.0/8 to lo, so a client
 * socket can bind 127.0.0.x, and that is the address the service sees.
 */
export function postFrom(url: string, localAddress: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress,
        agent: false,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as Record<string, unknown> }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
