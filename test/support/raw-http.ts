/** Raw bytes over TCP, for requests `fetch` will not send (unknown methods, broken framing). */
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
