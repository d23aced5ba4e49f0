/**
 * The counters in Redis (`counters: "redis://..."`), for deployments that want them off the
 * database. Each operation is one round trip: a read is one `MGET`/`GET`, a count one Lua script,
 * which Redis runs atomically, so concurrent failures from many nodes never lose a count and a
 * gated count refuses a key another node has just blocked. Every key expires by itself (`PX`).
 * One Redis server (or a primary with replicas), not Redis Cluster: a script touches several keys.
 *
 * A counter value is `failures:lastAt:blockedUntil:expiresAt` (epoch ms) for a back-off and
 * `count:endsAt` for a window. Times come from the service's clock, not Redis's.
 */
import { Redis } from 'ioredis';
import type { BackoffCheck } from './rate-limits.js';
import type { CounterStore, WindowState } from './counter-store.js';

/** KEYS: gate keys, then keys to count. ARGV: gate count, now, maxDelay (s), window (ms), then one threshold per key to count. */
const countScript = `
local ngate = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local maxDelay = tonumber(ARGV[3])
local window = tonumber(ARGV[4])
local function parse(v)
  if not v then return nil end
  local f, l, b, e = string.match(v, '^(%d+):(%d+):(%d+):(%d+)$')
  if not f or tonumber(e) < now then return nil end
  return tonumber(f), tonumber(b)
end
local untilAt = 0
for i = 1, ngate do
  local _, b = parse(redis.call('GET', KEYS[i]))
  if b and b > untilAt then untilAt = b end
end
if untilAt > now then return untilAt - now end
for i = ngate + 1, #KEYS do
  local threshold = tonumber(ARGV[4 + i - ngate])
  local f, b = parse(redis.call('GET', KEYS[i]))
  f = (f or 0) + 1
  b = b or 0
  if f >= threshold then b = now + math.min(maxDelay, 2 ^ math.min(f - threshold, 20)) * 1000 end
  local e = math.max(now, b) + window
  redis.call('SET', KEYS[i], string.format('%d:%d:%d:%d', f, now, b, e), 'PX', math.max(1, e - now))
end
return 0
`;

/** KEYS[1]: the window. ARGV: now, window (ms). Returns { count, endsAt }. */
const windowHitScript = `
local now = tonumber(ARGV[1])
local c, e = 0, 0
local v = redis.call('GET', KEYS[1])
if v then
  local pc, pe = string.match(v, '^(%d+):(%d+)$')
  if pc and tonumber(pe) > now then c = tonumber(pc); e = tonumber(pe) end
end
if c == 0 then e = now + tonumber(ARGV[2]) end
c = c + 1
redis.call('SET', KEYS[1], string.format('%d:%d', c, e), 'PX', math.max(1, e - now))
return { c, string.format('%d', e) }
`;

interface Scripts {
  svcCount(...args: Array<string | number>): Promise<number>;
  svcWindowHit(key: string, now: number, windowMs: number): Promise<[number, string]>;
}

export interface RedisCountersOptions {
  /** Prefix of every key, e.g. `"svc:"`. */
  keyPrefix: string;
  /** Every connection error, for the outage log (ioredis reconnects by itself). */
  onError?: (error: Error) => void;
}

function backoffOf(value: string | null, now: number): { blockedUntil: number } | undefined {
  if (!value) return undefined;
  const [, , blockedUntil, expiresAt] = value.split(':').map(Number);
  return expiresAt !== undefined && expiresAt >= now ? { blockedUntil: blockedUntil ?? 0 } : undefined;
}

export function openRedisCounters(url: string, options: RedisCountersOptions): CounterStore {
  const redis = new Redis(url, {
    keyPrefix: options.keyPrefix,
    // Fail at once while disconnected, never queue: a caller gets its 503 instead of waiting.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 2000,
    connectTimeout: 2000,
    // Reconnect for ever, at most every 2 s: the service recovers by itself.
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  redis.on('error', (err: Error) => options.onError?.(err));
  redis.defineCommand('svcCount', { lua: countScript });
  redis.defineCommand('svcWindowHit', { numberOfKeys: 1, lua: windowHitScript });
  const scripts = redis as unknown as Scripts;

  return {
    name: 'Redis',
    async check(keys, now): Promise<BackoffCheck> {
      const values = await redis.mget(...keys);
      let waitMs = 0;
      let counted = false;
      for (const value of values) {
        const c = backoffOf(value, now);
        if (!c) continue;
        counted = true;
        waitMs = Math.max(waitMs, c.blockedUntil - now);
      }
      return { waitMs, counted };
    },
    async count(failures, now, rule, gate = []) {
      const keys = [...gate, ...failures.map((f) => f.key)];
      const wait = await scripts.svcCount(keys.length, ...keys, gate.length, now, rule.maxDelay, rule.window * 1000, ...failures.map((f) => f.threshold));
      return Number(wait);
    },
    async reset(keys) {
      await redis.del(...keys);
    },
    async windowHit(key, now, windowMs): Promise<WindowState> {
      const [count, endsAt] = await scripts.svcWindowHit(key, now, windowMs);
      return { count: Number(count), endsAt: Number(endsAt) };
    },
    async windowPeek(key, now) {
      const value = await redis.get(key);
      const [count, endsAt] = (value ?? '').split(':').map(Number);
      return count !== undefined && endsAt !== undefined && endsAt > now ? { count, endsAt } : undefined;
    },
    ready() {
      if (redis.status === 'ready') return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, 3000);
        redis.once('ready', done);
      });
    },
    async close() {
      redis.disconnect();
    },
  };
}
