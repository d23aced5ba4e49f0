/**
 * The Redis server that tests use: `REDIS_URL`, or the local one at 127.0.0.1:6379. Each test
 * uses its own key prefix. Without a reachable server the Redis tests are skipped with a
 * visible message, except under CI (`CI=true`), where they run and fail.
 */
import { connect } from 'node:net';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let probed: Promise<string | undefined> | undefined;

export function redisSkipReason(what = 'Redis tests'): Promise<string | undefined> {
  probed ??= probe();
  return probed.then((reason) => {
    if (reason === undefined || process.env.CI === 'true') return undefined;
    console.warn(`Skipping ${what}: ${reason}. Set REDIS_URL to run them.`);
    return reason;
  });
}

/** A PING over a plain socket: no client library needed to ask. */
function probe(): Promise<string | undefined> {
  const { hostname, port } = new URL(redisUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname);
    const done = (reason: string | undefined): void => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(2000, () => done(`Redis at ${hostname}:${port} did not answer`));
    socket.on('error', (err) => done(`Redis at ${hostname}:${port} is unreachable (${err.message})`));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG') || data.toString().startsWith('-NOAUTH') ? undefined : `unexpected answer from Redis`));
  });
}
