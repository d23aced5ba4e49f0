/**
 * Bounds on how long a connection may hold a socket without doing its part (config
 * `connections`, milliseconds):
 * - a new connection that never sends a byte is closed after `firstByteTimeout`. Node's own
 *   time-outs start only once a request has begun, so without this such a socket stays open
 *   for ever, and enough of them exhaust the process's file descriptors;
 * - a request begun but not complete is answered 408 after `headersTimeout` (headers) or
 *   `requestTimeout` (whole request), by Node, through `client-error.ts`;
 * - an idle kept-alive connection is closed after `keepAliveTimeout`.
 */
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionBounds {
  readonly firstByteTimeout: number;
  readonly headersTimeout: number;
  readonly requestTimeout: number;
  readonly keepAliveTimeout: number;
}

/** Options for `createServer`: Node checks the headers and request time-outs on this interval. */
export function connectionServerOptions(bounds: ConnectionBounds): ServerOptions {
  // Node's default interval (30 s) would let a slow sender keep its socket three times the bound.
  return { connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(bounds.headersTimeout / 4))) };
}

export function boundConnections(server: Server, bounds: ConnectionBounds): void {
  server.requestTimeout = bounds.requestTimeout;
  server.headersTimeout = bounds.headersTimeout;
  server.keepAliveTimeout = bounds.keepAliveTimeout;
  server.on('connection', (socket: Socket) => {
    // One timer per connection, not per request: kept-alive connections pay for it once.
    const timer = setTimeout(() => {
      // A connection that has sent anything is Node's to judge (408 after headersTimeout).
      if (socket.bytesRead === 0) socket.destroy();
    }, bounds.firstByteTimeout);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}
