import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The first port of the kernel's ephemeral range, where it can be read (Linux); undefined elsewhere. */
const ephemeralRangeStart = ((): number | undefined => {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) ? first : undefined;
  } catch {
    return undefined;
  }
})();

/**
 * The ports a listener here is picked from: below the kernel's ephemeral range. The kernel hands
 * ports of that range to every outgoing connection (and to `listen(0)`), so a port probed free
 * there can be the local port of some test's fetch a moment later, and the service's bind then
 * fails with EADDRINUSE. Below it, a probed port competes only with other listeners.
 * Undefined where the range is unknown or starts too low: then the kernel picks, as before.
 */
export const listenerPorts = ephemeralRangeStart !== undefined && ephemeralRangeStart > 12_000 ? { low: 10_000, high: ephemeralRangeStart } : undefined;

/**
 * The Fetch Standard's "bad ports" in the range above: `fetch` refuses them ("bad port"), so a
 * service listening there could not be reached by the tests' own requests.
 */
const fetchBlocked = new Set([10080]);

function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(undefined) : reject(error)));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}

/** A loopback port that was free a moment ago, outside the range outgoing connections use where that is known. */
export async function freePort(): Promise<number> {
  if (listenerPorts !== undefined) {
    const { low, high } = listenerPorts;
    for (let attempt = 0; attempt < 50; attempt++) {
      const candidate = low + Math.floor(Math.random() * (high - low));
      if (fetchBlocked.has(candidate)) continue;
      const port = await probe(candidate);
      if (port !== undefined) return port;
    }
  }
  const port = await probe(0);
  if (port === undefined) throw new Error('no free loopback port');
  return port;
}
