/**
 * The store soak (issue 39, "a database that stays small"; `BENCH_ONLY=soak-store`, never part
 * of a plain `npm run bench` nor of CI): the service on PostgreSQL under full load of the
 * requests that leave rows behind (reference tokens, refresh-token rotations, authorization
 * codes), with lifetimes of a minute and a sweep every few seconds, for several minutes. The
 * grants table's rows by kind, its expired backlog and its on-disk size
 * (`pg_total_relation_size`, indexes and TOAST included) are sampled all along: once the first
 * records expire they should level off at about (rate × lifetime), not grow with the run.
 *
 * Deleted rows free their space on disk only once vacuumed, which autovacuum does on its own on a
 * PostgreSQL as installed. When the server given has it off (the tests' server may), the soak
 * runs on a PostgreSQL of its own with the default settings (own-postgres.ts) instead, and says so.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './fixture.js';
import { runRound } from './measure.js';
import type { BenchPostgres } from './postgres.js';
import { startService } from './processes.js';
import type { Bench } from './run-scenario.js';
import { storeSoakMix } from './scenarios.js';
import { answerMix } from './report.js';
import { startOwnPostgres } from './own-postgres.js';

export interface StoreSample {
  /** Seconds since the load started. */
  readonly second: number;
  /** Rows of `persisted_grants` by type. */
  readonly rows: Readonly<Record<string, number>>;
  readonly totalRows: number;
  /** Of those, expired and not yet swept. */
  readonly expiredRows: number;
  /** `pg_total_relation_size('persisted_grants')`, bytes. */
  readonly grantsBytes: number;
  /** The service's `svc_store_expired_rows_removed_total` so far. */
  readonly removed: number | undefined;
}

export interface StoreSoakResult {
  /** Which PostgreSQL, and whether autovacuum ran there. */
  readonly server: string;
  readonly seconds: number;
  readonly lifetimeSeconds: number;
  readonly cleanupInterval: number;
  readonly rps: number;
  readonly answers: Readonly<Record<string, number>>;
  readonly samples: readonly StoreSample[];
}

const MiB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function sample(db: pg.Client, url: string, second: number): Promise<StoreSample> {
  const now = Date.now();
  const { rows } = await db.query<{ type: string; n: string; expired: string }>(
    'select type, count(*) as n, count(*) filter (where expires_at < $1) as expired from persisted_grants group by type order by type',
    [now],
  );
  const size = await db.query<{ bytes: string }>(`select pg_total_relation_size('persisted_grants') as bytes`);
  const metrics = await fetch(`${url}/metrics`).then((res) => res.text()).catch(() => '');
  const removed = /^svc_store_expired_rows_removed_total (\S+)$/m.exec(metrics)?.[1];
  return {
    second,
    rows: Object.fromEntries(rows.map((r) => [r.type, Number(r.n)])),
    totalRows: rows.reduce((sum, r) => sum + Number(r.n), 0),
    expiredRows: rows.reduce((sum, r) => sum + Number(r.expired), 0),
    grantsBytes: Number(size.rows[0]!.bytes),
    removed: removed === undefined ? undefined : Number(removed),
  };
}

export function storeSoakMarkdown(result: StoreSoakResult): string {
  const kinds = [...new Set(result.samples.flatMap((s) => Object.keys(s.rows)))].sort();
  const lines = [
    `# Store soak (PostgreSQL)`,
    '',
    `${result.seconds} s of reference tokens, refresh-token rotations and authorization codes at full rate ` +
      `(${Math.round(result.rps)} req/s; answers: ${answerMix(result.answers)}); lifetimes ${result.lifetimeSeconds} s, ` +
      `\`cleanupInterval\` ${result.cleanupInterval} s. Rows of \`persisted_grants\` and its on-disk size ` +
      '(`pg_total_relation_size`, indexes included), sampled during the load.',
    '',
    `Server: ${result.server}.`,
    '',
    `| s | rows | expired, not yet swept | on disk | removed so far | ${kinds.join(' | ')} |`,
    `|---:|---:|---:|---:|---:|${kinds.map(() => '---:').join('|')}|`,
    ...result.samples.map((s) =>
      `| ${s.second} | ${s.totalRows} | ${s.expiredRows} | ${MiB(s.grantsBytes)} | ${s.removed ?? 'n/a'} | ${kinds.map((k) => s.rows[k] ?? 0).join(' | ')} |`),
  ];
  return `${lines.join('\n')}\n`;
}

export async function runStoreSoak(
  bench: Bench,
  postgres: BenchPostgres,
  settings: { seconds: number; sampleSeconds: number; lifetimeSeconds: number; cleanupInterval: number; cpu: number | undefined; outDir: string | undefined },
): Promise<StoreSoakResult> {
  const { log } = bench;
  const { storeUrl, server: serverText, release } = await soakDatabase(postgres, log);
  try {
    return await soakOn(bench, storeUrl, serverText, settings);
  } finally {
    release();
  }
}

/** The given server when autovacuum runs there, else one of the soak's own (see the header). */
async function soakDatabase(postgres: BenchPostgres, log: (line: string) => void): Promise<{ storeUrl: string; server: string; release(): void }> {
  const settingsOf = async (url: string): Promise<{ autovacuum: string; version: string }> => {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const autovacuum = (await db.query<{ autovacuum: string }>('show autovacuum')).rows[0]!.autovacuum;
      const version = (await db.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
      return { autovacuum, version };
    } finally {
      await db.end();
    }
  };
  const shared = await settingsOf(postgres.serviceUrl);
  if (shared.autovacuum === 'on') return { storeUrl: postgres.serviceUrl, server: `the shared PostgreSQL ${shared.version}, autovacuum on`, release: () => undefined };
  log(`  the shared PostgreSQL runs with autovacuum ${shared.autovacuum}: the soak starts one of its own with the default settings`);
  const own = await startOwnPostgres();
  if ('skipped' in own) throw new Error(`the shared PostgreSQL has autovacuum ${shared.autovacuum} and ${own.skipped}`);
  const mine = await settingsOf(own.url);
  return {
    storeUrl: own.url,
    server: `a PostgreSQL ${mine.version} of the soak's own (initdb defaults, autovacuum ${mine.autovacuum}; the shared server has it ${shared.autovacuum})`,
    release: () => own.stop(),
  };
}

async function soakOn(
  bench: Bench,
  storeUrl: string,
  serverText: string,
  settings: { seconds: number; sampleSeconds: number; lifetimeSeconds: number; cleanupInterval: number; cpu: number | undefined; outDir: string | undefined },
): Promise<StoreSoakResult> {
  const { fixture, log, options } = bench;
  const port = await freePort();
  const configFile = fixture.writeConfig('store-soak', {
    port, store: storeUrl, storeSoak: { lifetimeSeconds: settings.lifetimeSeconds, cleanupInterval: settings.cleanupInterval },
  });
  log(`store soak on PostgreSQL: ${settings.seconds} s at full rate, lifetimes ${settings.lifetimeSeconds} s, cleanupInterval ${settings.cleanupInterval} s, a sample every ${settings.sampleSeconds} s`);
  const server = await startService({ configFile, port, cpu: settings.cpu });
  const db = new pg.Client({ connectionString: storeUrl });
  await db.connect();
  try {
    const { specs, note } = await storeSoakMix({ url: server.url, implementation: 'svc', fixture, measured: new Map() });
    const samples: StoreSample[] = [];
    const started = Date.now();
    const take = async (): Promise<void> => {
      const s = await sample(db, server.url, Math.round((Date.now() - started) / 1000));
      samples.push(s);
      log(`    ${String(s.second).padStart(5)} s: ${s.totalRows} rows (${s.expiredRows} expired), ${MiB(s.grantsBytes)} on disk, ${s.removed ?? 'n/a'} removed so far`);
    };
    await take();
    let sampling = Promise.resolve();
    const timer = setInterval(() => {
      sampling = sampling.then(take).catch((error: unknown) => log(`    sample failed: ${(error as Error).message}`));
    }, settings.sampleSeconds * 1000);
    let round;
    try {
      round = await runRound(server.url, specs, settings.seconds, options.connections);
    } finally {
      clearInterval(timer);
      await sampling;
    }
    await take();
    const noted = note();
    log(`    ${Math.round(round.rps)} req/s; answers: ${answerMix(round.answers)}${noted ? `; ${noted}` : ''}`);
    const result: StoreSoakResult = {
      server: serverText, seconds: settings.seconds, lifetimeSeconds: settings.lifetimeSeconds, cleanupInterval: settings.cleanupInterval,
      rps: round.rps, answers: round.answers, samples,
    };
    const outDir = settings.outDir ?? mkdtempSync(join(tmpdir(), 'svc-store-soak-'));
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'store-soak.json'), `${JSON.stringify(result, null, 2)}\n`);
    writeFileSync(join(outDir, 'store-soak.md'), storeSoakMarkdown(result));
    log(`  wrote ${join(outDir, 'store-soak.md')} and store-soak.json`);
    return result;
  } finally {
    await db.end();
    const code = await server.stop();
    if (code !== 0) log(`  svc (store soak) exited with code ${code}:\n${server.output().slice(-2000)}`);
  }
}
