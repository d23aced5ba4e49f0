// The PostgreSQL ceiling without HTTP (issue 21): the service's reference-token INSERT, then its
// read by key, in a tight loop over a pool of the service's default size (10), with as many
// statements in flight as the benchmark has connections. What PostgreSQL and the pg driver
// reach on this machine for the statements a request costs, so the service's PostgreSQL rows
// can say what share of it they reach.
// Usage: node test/bench/postgres-loop.mjs <postgres url> <seconds> <in flight>; prints one JSON line:
// { insert: { perSecond, cpuMicros, p99 }, select: { ... } }, cpuMicros being this process's CPU
// (user + system) per statement; PostgreSQL's own processes are not counted.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createTable, insertGrant, referenceTokenRow, selectGrant } from './postgres-statements.mjs';

const [url, secondsText, inFlightText] = process.argv.slice(2);
const seconds = Number(secondsText);
const inFlight = Number(inFlightText);
const pool = new pg.Pool({ connectionString: url, max: 10 });
await pool.query(createTable);

const newKey = () => randomBytes(32).toString('base64url');

/** Keeps `inFlight` statements going for `seconds`; the first second is warm-up and not counted. */
async function loop(statement) {
  const warmUntil = performance.now() + 1000;
  const end = warmUntil + seconds * 1000;
  let counted = 0;
  let cpuAtStart;
  const latencies = [];
  await Promise.all(Array.from({ length: inFlight }, async () => {
    for (;;) {
      const started = performance.now();
      if (started >= end) return;
      await pool.query(statement());
      const now = performance.now();
      if (now < warmUntil) continue;
      cpuAtStart ??= process.cpuUsage();
      counted++;
      if (latencies.length < 200_000) latencies.push(now - started);
    }
  }));
  const cpu = process.cpuUsage(cpuAtStart);
  latencies.sort((a, b) => a - b);
  return {
    perSecond: counted / seconds,
    cpuMicros: (cpu.user + cpu.system) / counted,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
  };
}

const keys = [];
const insert = await loop(() => {
  const key = newKey();
  if (keys.length < 100_000) keys.push(key);
  return { ...insertGrant, values: referenceTokenRow(key) };
});
let next = 0;
const select = await loop(() => ({ ...selectGrant, values: [keys[next++ % keys.length]] }));
await pool.end();
process.stdout.write(`${JSON.stringify({ insert, select })}\n`);
