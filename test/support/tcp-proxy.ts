/**
 * A TCP proxy a test controls, to put between the service and its database and cut the line.
 *
 * - `cut()`: destroys every open connection and refuses new ones (the database "went away").
 * - `blackhole()`: keeps accepting connections but forwards nothing either way, and stalls
 *   open ones: the database "stopped answering", so only timeouts end a request.
 * - `resume()`: forwards again; stalled connections carry on where they stopped.
 *
 * @example
 * const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
 * proxy.cut();
 * proxy.resume();
 * await proxy.close();
 */
import { connect, createServer, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'cut' | 'blackhole';

export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  readonly mode: ProxyMode;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections currently open through the proxy. */
  readonly open: number;
  cut(): void;
  blackhole(): void;
  resume(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  let accepted = 0;
  const pairs = new Set<Pair>();
  // Connections accepted while blackholed: held open, never forwarded until resume.
  const held = new Set<Socket>();

  const destroy = (pair: Pair): void => {
    pairs.delete(pair);
    pair.client.destroy();
    pair.upstream.destroy();
  };

  function forward(client: Socket): void {
    const upstream = connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => destroy(pair));
    upstream.on('error', () => destroy(pair));
    client.on('close', () => destroy(pair));
    upstream.on('close', () => destroy(pair));
  }

  const server = createServer({ pauseOnConnect: true }, (client) => {
    accepted++;
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    if (mode === 'blackhole') {
      held.add(client);
      client.on('error', () => held.delete(client));
      client.on('close', () => held.delete(client));
      return;
    }
    forward(client);
    client.resume();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };

  return {
    host: '127.0.0.1',
    port,
    get mode() {
      return mode;
    },
    get accepted() {
      return accepted;
    },
    get open() {
      return pairs.size + held.size;
    },
    cut() {
      mode = 'cut';
      for (const pair of [...pairs]) destroy(pair);
      for (const socket of [...held]) socket.destroy();
      held.clear();
    },
    blackhole() {
      mode = 'blackhole';
      // Stop reading both ways; the kernel buffers fill and nothing reaches the other side.
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      const wasBlackholed = mode === 'blackhole';
      mode = 'forward';
      if (wasBlackholed) {
        for (const { client, upstream } of pairs) {
          client.pipe(upstream);
          upstream.pipe(client);
        }
      }
      for (const socket of [...held]) {
        held.delete(socket);
        socket.removeAllListeners('error');
        socket.removeAllListeners('close');
        forward(socket);
        socket.resume();
      }
    },
    async close() {
      mode = 'cut';
      for (const pair of [...pairs]) destroy(pair);
      for (const socket of held) socket.destroy();
      held.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
