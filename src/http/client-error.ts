/**
 * Requests Node rejects before Koa sees them (headers over `maxHeaderSize`, malformed HTTP)
 * still get a JSON answer instead of a bare status line: an OAuth error, or for an unknown method
 * the plain 501 of not-implemented.ts.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { isUnknownMethod, notImplementedJson } from './not-implemented.js';

export const maxHeaderBytes = 16 * 1024;

function reply(socket: Duplex, status: number, reason: string, description: string): void {
  send(socket, status, reason, JSON.stringify({ error: 'invalid_request', error_description: description }));
}

function send(socket: Duplex, status: number, reason: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      // The caller's X-Request-Id cannot be trusted from a request that did not parse: always a new one.
      `Cache-Control: no-store\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function answerClientError(err: NodeJS.ErrnoException & { rawPacket?: unknown; bytesParsed?: unknown }, socket: Duplex): void {
  if (!socket.writable || (err.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    reply(socket, 431, 'Request Header Fields Too Large', `The request headers are too large (at most ${maxHeaderBytes} bytes).`);
  } else if (err.code === 'HPE_INVALID_METHOD' && isUnknownMethod(err.rawPacket, err.bytesParsed)) {
    send(socket, 501, 'Not Implemented', notImplementedJson);
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    reply(socket, 408, 'Request Timeout', 'The request took too long to arrive.');
  } else {
    reply(socket, 400, 'Bad Request', 'The request is not valid HTTP.');
  }
}

/** CONNECT (RFC 9110 §9.3.6) asks for a tunnel, which this service never opens: 501, not a dropped socket. */
export function answerConnect(_request: IncomingMessage, socket: Duplex): void {
  send(socket, 501, 'Not Implemented', notImplementedJson);
}
