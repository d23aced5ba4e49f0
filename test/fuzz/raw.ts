/**
 * Bytes `node:http` will not send: garbage, broken framing, smuggling shapes, pipelines; and slow
 * senders, which must be cut off (408) rather than hold a socket.
 */
import { connect } from 'node:net';
import fc from 'fast-check';

export interface RawCase {
  readonly describe: string;
  readonly bytes: Buffer;
  /** How many answers a well-behaved server gives (pipelines), when that is known. */
  readonly answers?: number;
}

export interface RawOutcome {
  readonly statuses: number[];
  readonly text: string;
  readonly ms: number;
  readonly timedOut: boolean;
}

const crlf = (lines: string[]): string => `${lines.join('\r\n')}\r\n\r\n`;
const tokenPost = (body: string, extra: string[] = []) =>
  crlf(['POST /connect/token HTTP/1.1', 'Host: x', 'Content-Type: application/x-www-form-urlencoded', `Content-Length: ${Buffer.byteLength(body)}`, ...extra]) + body;
const small = [
  crlf(['GET /healthz HTTP/1.1', 'Host: x']),
  crlf(['GET /.well-known/openid-configuration HTTP/1.1', 'Host: x']),
  tokenPost('grant_type=client_credentials'),
  crlf(['GET /nope HTTP/1.1', 'Host: x']),
  crlf(['TRACE / HTTP/1.1', 'Host: x']),
];

const framing = fc.constantFrom<RawCase>(
  ...[
    ['Content-Length and Transfer-Encoding both', crlf(['POST /connect/token HTTP/1.1', 'Host: x', 'Content-Length: 4', 'Transfer-Encoding: chunked']) + '0\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n'],
    ['two Content-Lengths', crlf(['POST /connect/token HTTP/1.1', 'Host: x', 'Content-Length: 3', 'Content-Length: 30']) + 'a=b'],
    ['a negative Content-Length', crlf(['POST /connect/token HTTP/1.1', 'Host: x', 'Content-Length: -1'])],
    ['a huge Content-Length', crlf(['POST /connect/token HTTP/1.1', 'Host: x', 'Content-Length: 99999999999999999999'])],
    ['Content-Length longer than the body', crlf(['POST /connect/token HTTP/1.1', 'Host: x', 'Content-Type: application/x-www-form-urlencoded', 'Content-Length: 1000']) + 'grant_type=x'],
    ['a bad chunk size', crlf(['POST /connect/token HTTP/1.1', 'Host: x', 'Transfer-Encoding: chunked']) + 'zz\r\nabc\r\n0\r\n\r\n'],
    ['a chunk size past 2^64', crlf(['POST /connect/token HTTP/1.1', 'Host: x', 'Transfer-Encoding: chunked']) + 'fffffffffffffffffff\r\nabc\r\n'],
    ['Transfer-Encoding: gzip, chunked', crlf(['POST /connect/token HTTP/1.1', 'Host: x', 'Transfer-Encoding: gzip, chunked']) + '0\r\n\r\n'],
    ['an obs-fold header', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n'],
    ['bare LF line ends', 'GET /healthz HTTP/1.1\nHost: x\n\n'],
    ['a header without a colon', crlf(['GET /healthz HTTP/1.1', 'Host: x', 'NoColonHere'])],
    ['a space before the colon', crlf(['GET /healthz HTTP/1.1', 'Host : x'])],
    ['no Host', crlf(['GET /healthz HTTP/1.1'])],
    ['two Hosts', crlf(['GET /healthz HTTP/1.1', 'Host: a', 'Host: b'])],
    ['HTTP/0.9', 'GET /healthz\r\n'],
    ['HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['HTTP/1.0 keep-alive', crlf(['GET /healthz HTTP/1.0', 'Connection: keep-alive'])],
    ['HTTP/9.9', crlf(['GET /healthz HTTP/9.9', 'Host: x'])],
    ['an absolute-form target', crlf(['GET http://evil.example/healthz HTTP/1.1', 'Host: x'])],
    ['an asterisk target', crlf(['OPTIONS * HTTP/1.1', 'Host: x'])],
    ['a CONNECT', crlf(['CONNECT evil.example:443 HTTP/1.1', 'Host: evil.example:443'])],
    ['a WebSocket upgrade', crlf(['GET /healthz HTTP/1.1', 'Host: x', 'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13'])],
    ['an h2c upgrade', crlf(['GET /healthz HTTP/1.1', 'Host: x', 'Upgrade: h2c', 'Connection: Upgrade, HTTP2-Settings', 'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA'])],
    ['Expect: 100-continue', tokenPost('grant_type=client_credentials', ['Expect: 100-continue'])],
    ['Expect: something else', tokenPost('grant_type=client_credentials', ['Expect: 999-nope'])],
    ['a NUL in the request line', 'GET /health\u0000z HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['non-ASCII in the target', 'GET /d\u00e9vice HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a made-up method', crlf(['BREW /connect/token HTTP/1.1', 'Host: x'])],
    ['a lower-case method', crlf(['get /healthz HTTP/1.1', 'Host: x'])],
    ['a 20 KiB header', crlf(['GET /healthz HTTP/1.1', 'Host: x', `X-Big: ${'a'.repeat(20_000)}`])],
    ['a 20 KiB target', crlf([`GET /${'a'.repeat(20_000)} HTTP/1.1`, 'Host: x'])],
    ['2000 headers', crlf(['GET /healthz HTTP/1.1', 'Host: x', ...Array.from({ length: 2_000 }, (_, i) => `X-${i}: y`)])],
  ].map(([describe, text]) => ({ describe: describe!, bytes: Buffer.from(text!, 'latin1') })),
);

export const rawCaseArb: fc.Arbitrary<RawCase> = fc.oneof(
  { weight: 4, arbitrary: framing },
  { weight: 2, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 4_096 }).map((b) => ({ describe: `${b.length} random bytes`, bytes: Buffer.from(b) })) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.uint8Array({ maxLength: 64 }), fc.constantFrom(...small)).map(([noise, req]) => ({
      describe: `${noise.length} random bytes, then a request`, bytes: Buffer.concat([Buffer.from(noise), Buffer.from(req)]),
    })),
  },
  {
    weight: 3,
    arbitrary: fc.array(fc.constantFrom(...small), { minLength: 2, maxLength: 30 }).map((reqs) => ({
      describe: `a pipeline of ${reqs.length} requests`, bytes: Buffer.from(reqs.join('')), answers: reqs.length,
    })),
  },
);

/**
 * Writes the bytes and reads until the server closes (or `timeoutMs`). A single request is
 * followed by a half-close, so the server sees its end; a pipeline is not (Node drops what is
 * still queued when the client half-closes, as a real pipelining client never does): it is read
 * until every answer is in.
 */
export function sendRaw(port: number, bytes: Buffer, timeoutMs: number, answers?: number): Promise<RawOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timedOut = false;
    // A status line follows the previous body directly, with no line break of its own.
    const statusesOf = (text: string) => [...text.matchAll(/HTTP\/1\.[01] (\d{3}) [A-Z]/g)].map((m) => Number(m[1]));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (answers !== undefined && statusesOf(Buffer.concat(chunks).toString('latin1')).length >= answers) {
        // Let the last body arrive before closing.
        setTimeout(() => socket.destroy(), 50);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ statuses: statusesOf(text), text, ms: Date.now() - started, timedOut });
    });
    socket.setTimeout(timeoutMs, () => {
      timedOut = true;
      socket.destroy();
    });
    if (answers === undefined) socket.end(bytes);
    else socket.write(bytes);
  });
}

/**
 * A client that sends its request a few bytes at a time and never finishes. The service's
 * header and request time-outs (10 s and 30 s) must answer 408 or close; `boundMs` is the wait.
 */
export function slowSender(port: number, body: boolean, boundMs: number): Promise<string | undefined> {
  const started = Date.now();
  const text = body
    ? 'POST /connect/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\n' + 'a'.repeat(10_000)
    : 'GET /healthz HTTP/1.1\r\nHost: x\r\n' + 'X-Slow: 1\r\n'.repeat(10_000);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let sent = 0;
    const drip = setInterval(() => {
      if (sent < text.length && socket.writable) socket.write(text.slice(sent, (sent += 2)));
    }, 500);
    const bound = setTimeout(() => {
      clearInterval(drip);
      socket.destroy();
      resolve(`a slow ${body ? 'body' : 'header'} sender still connected after ${boundMs} ms`);
    }, boundMs);
    socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(bound);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
      if (status !== undefined && status !== '408') resolve(`a slow ${body ? 'body' : 'header'} sender got ${status}, not 408`);
      else resolve(undefined);
      void started;
    });
  });
}
