/**
 * Requests Node rejects before Koa sees them (headers over `maxHeaderSize`, malformed HTTP)
 * still get a JSON OAuth error instead of a bare status line.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';

export const maxHeaderBytes = 16 * 1024;

function reply(socket: Socket, status: number, reason: string, description: string): void {
  const body = JSON.stringify({ error: 'invalid_request', error_description: description });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      // The caller's X-Request-Id cannot be trusted from a request that did not parse: always a new one.
      `Cache-Control: no-store\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (err.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    reply(socket, 431, 'Request Header Fields Too Large', `The request headers are too large (at most ${maxHeaderBytes} bytes).`);
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    reply(socket, 408, 'Request Timeout', 'The request took too long to arrive.');
  } else {
    reply(socket, 400, 'Bad Request', 'The request is not valid HTTP.');
  }
}
