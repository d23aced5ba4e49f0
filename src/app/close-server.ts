/**
 * Closes an HTTP server the way SIGTERM promises: stop accepting, let requests in progress
 * finish, and keep nothing else open. `server.close()` alone waits for every connection, and
 * two kinds would hold it (and the process) until the drain limit: a connection that has not
 * sent a request yet (`closeIdleConnections()` leaves it, and the headers time-out check stops
 * with the server), and a kept-alive connection, which stays until its keep-alive time-out
 * and may bring new requests meanwhile.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Watches `server`'s connections; call the result to close it. */
export function closableServer(server: Server): () => Promise<void> {
  const open = new Map<Socket, Set<ServerResponse>>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    open.set(socket, new Set());
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (req, res: ServerResponse) => {
    const socket = req.socket;
    const answering = open.get(socket);
    if (!answering) return;
    answering.add(res);
    // Runs before the app writes its headers: a request that comes while closing is the connection's last.
    if (closing) res.setHeader('Connection', 'close');
    res.once('close', () => {
      answering.delete(res);
      if (closing && answering.size === 0) socket.end();
    });
  });
  return () =>
    new Promise<void>((resolve) => {
      closing = true;
      server.close(() => resolve());
      for (const [socket, answering] of open) {
        if (answering.size === 0) socket.destroy();
        for (const res of answering) if (!res.headersSent) res.setHeader('Connection', 'close');
      }
    });
}
