/**
 * The results as a console table, `results.json`, `results.md` and `throughput.svg`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, type } from 'node:os';
import { join } from 'node:path';
import type { RoundResult } from './measure.js';
import { barChart, type Bar } from './svg-chart.js';
import { signatureParts, storeBounds, type StoreBound } from './bounds.js';

export interface Row {
  readonly id: string;
  readonly title: string;
  /** Where it ran, e.g. "svc, CPU 0". */
  readonly server: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** Server CPU time (user + system) per request answered, in µs, median over rounds; undefined for a cluster or without /proc. */
  readonly cpuMicrosPerRequest: number | undefined;
  /** Median req/s over the bare-Koa floor's, measured in the same run. */
  readonly ratioToFloor: number | undefined;
  /** node-oidc-provider on the same requests, measured in rounds alternating with ours (when it ran), and issue 7's figure. */
  readonly oidcProvider:
    | {
        readonly rps: number | undefined;
        readonly p99: number | undefined;
        readonly cpuMicrosPerRequest: number | undefined;
        /** Median over rounds of our req/s over its req/s in the same round. */
        readonly pairedRatio: number | undefined;
        /** Issue 7's figure; none for scenarios it did not measure (DPoP). */
        readonly quoted: number | undefined;
      }
    | undefined;
  readonly answers: Readonly<Record<string, number>>;
  readonly rounds: readonly RoundResult[];
  readonly note: string | undefined;
  /**
   * A store floor measured beside one durable row (issue 40): that row's id. The two ran in
   * alternating rounds, so each of the row's rounds has its floor's round at the same machine speed.
   */
  readonly pairedWith?: string | undefined;
  /** The signature costs measured just before that row (signature-cost.ts), for its bound. */
  readonly signatureMicros?: BenchResults['signatureMicros'];
}

export interface Skipped {
  readonly id: string;
  readonly title: string;
  readonly skipped: string;
}

export interface BenchResults {
  readonly date: string;
  readonly command: string;
  readonly machine: {
    readonly cpu: string;
    readonly cores: number;
    readonly node: string;
    readonly os: string;
    readonly loadAverageAtStart: readonly number[];
    readonly loadAverageAtEnd: readonly number[];
  };
  readonly settings: {
    readonly connections: number;
    readonly warmupSeconds: number;
    readonly roundSeconds: number;
    readonly rounds: number;
    readonly pinned: boolean;
    readonly pinning: string;
    readonly assertionAlg: string;
  };
  readonly floor: Row | undefined;
  /** The floor measured again after everything else, to show drift. */
  readonly floorAtEnd: Row | undefined;
  /** Bare Koa plus the service's reference-token insert on PostgreSQL: what the PostgreSQL rows are a share of. */
  readonly postgresCeiling?: Row | undefined;
  /**
   * Issue 40: bare Koa plus exactly the store calls of one durable row (test/bench/store-floor.ts),
   * ids `floor-code`, `floor-refresh`, `floor-reference`, `floor-dpop`, with `-pg` on PostgreSQL.
   */
  readonly storeFloors?: ReadonlyArray<Row | Skipped> | undefined;
  /** The same statements in a tight loop without HTTP (test/bench/postgres-loop.mjs). */
  readonly postgresLoop?: {
    readonly insert: { readonly perSecond: number; readonly cpuMicros: number; readonly p99: number };
    readonly select: { readonly perSecond: number; readonly cpuMicros: number; readonly p99: number };
  } | undefined;
  /** CPU µs of one access-token signature, and of one check of it, measured in the load generator's process before the rounds. */
  readonly signatureMicros?: { readonly ES256: number; readonly RS256: number; readonly verify?: { readonly ES256: number; readonly RS256: number } } | undefined;
  readonly scenarios: ReadonlyArray<Row | Skipped>;
  /** node-oidc-provider's own rows, on the same machine with the same load. */
  readonly oidcProvider: ReadonlyArray<Row | Skipped>;
  readonly memory:
    | { readonly idleKiB: number | undefined; readonly beforeSoakKiB: number | undefined; readonly afterSoakKiB: number | undefined; readonly soakSeconds: number; readonly soakRps: number; readonly soakAnswers: Readonly<Record<string, number>> }
    | undefined;
  /** Cluster mode against one worker, per scenario compared. */
  readonly cluster: ReadonlyArray<{
    /** The scenario compared (absent in results written before it was recorded). */
    readonly id?: string;
    readonly title: string; readonly workers: number; readonly oneWorker: Row; readonly allWorkers: Row; readonly speedup: number;
    /** One worker signing on `threads` threads (`signing.threads`), against one worker signing inline. */
    readonly signingThreads?: { readonly threads: number; readonly row: Row; readonly speedup: number };
  }>;
  /** Issue 21: the floor plus one RS256 signature, signed inline, in cluster workers or in a pool of threads (test/bench/signing-pool.mjs). */
  readonly signingPool: ReadonlyArray<{ readonly mode: 'inline' | 'cluster' | 'pool'; readonly count: number; readonly title: string; readonly row: Row }>;
  readonly notes: readonly string[];
}

export function machineInfo(): Omit<BenchResults['machine'], 'loadAverageAtEnd'> {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    node: process.version,
    os: `${type()} ${release()}`,
    loadAverageAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

const isRow = (r: Row | Skipped): r is Row => !('skipped' in r);

/** Issue 7's bare-Koa floor, on the machine where it measured node-oidc-provider. */
export const issueFloor = 19_500;
/**
 * How many times node-oidc-provider's throughput: the median of the per-round ratios, not the
 * ratio of the medians, because the machine's speed drifts between rounds.
 */
export const timesOidcProvider = (r: Row): number | undefined => r.oidcProvider?.pairedRatio;
const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const ms = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));
const ratio = (n: number | undefined): string => (n === undefined ? '' : `${n.toFixed(2)}×`);
const optionalInt = (n: number | undefined): string => (n === undefined ? '' : int(n));
const optionalMs = (n: number | undefined): string => (n === undefined ? '' : ms(n));

/** Answers as percentages, largest first, e.g. "200 token 100%" or "400 authorization_pending 99.9%, 400 slow_down 0.1%". */
export function answerMix(answers: Readonly<Record<string, number>>): string {
  const total = Object.values(answers).reduce((a, b) => a + b, 0);
  if (total === 0) return 'no answers';
  return Object.entries(answers)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${kind} ${n === total ? '100' : ((100 * n) / total).toFixed(n / total < 0.001 ? 3 : 1)}%`)
    .join(', ');
}

function rowsForTable(results: BenchResults): Array<Row | Skipped> {
  return [
    ...(results.floor ? [results.floor] : []),
    ...(results.postgresCeiling ? [results.postgresCeiling] : []),
    ...(results.storeFloors ?? []),
    ...results.scenarios,
    ...results.cluster.flatMap((c) => [c.oneWorker, c.allWorkers, ...(c.signingThreads ? [c.signingThreads.row] : [])]),
    ...results.signingPool.map((p) => p.row),
    ...(results.floorAtEnd ? [results.floorAtEnd] : []),
  ];
}

export function consoleTable(results: BenchResults): string {
  const header = [
    'scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'vs floor', 'oidc-provider', 'its p99 ms', 'its CPU µs/req', '× oidc-provider', 'answers',
  ];
  const lines = [...rowsForTable(results), ...results.oidcProvider].map((r) =>
    isRow(r)
      ? [
          r.title, r.server, int(r.rps), ms(r.p50), ms(r.p99), optionalInt(r.cpuMicrosPerRequest), ratio(r.ratioToFloor),
          optionalInt(r.oidcProvider?.rps), optionalMs(r.oidcProvider?.p99), optionalInt(r.oidcProvider?.cpuMicrosPerRequest),
          ratio(timesOidcProvider(r)), answerMix(r.answers),
        ]
      : [r.title, '', '', '', '', '', '', '', '', '', '', `skipped: ${r.skipped}`],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const numeric = new Set([2, 3, 4, 5, 6, 7, 8, 9, 10]);
  const fmt = (cells: string[]): string =>
    cells.map((c, i) => (i === cells.length - 1 ? c : numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)].join('\n');
}

export function markdown(results: BenchResults): string {
  const { machine: m, settings: s } = results;
  const out: string[] = [
    '# Benchmark results',
    '',
    `Measured ${results.date} with \`${results.command}\` on ${m.cpu}, ${m.cores} cores, Node ${m.node}, ${m.os}.`,
    `${s.connections} connections, ${s.warmupSeconds} s warm-up, then ${s.rounds} rounds of ${s.roundSeconds} s per scenario; medians shown. ${s.pinning}`,
    `Load average at start ${m.loadAverageAtStart.join(' / ')}, at end ${m.loadAverageAtEnd.join(' / ')} (anything well above 1 means other work shared the CPUs).`,
    '',
    '![throughput per scenario](throughput.svg)',
    '',
    '| scenario | server | req/s | p50 ms | p99 ms | CPU µs/request | vs bare Koa | oidc-provider req/s | its p99 ms | its CPU µs/request | × oidc-provider | answers |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rowsForTable(results).map((r) =>
      isRow(r)
        ? `| ${r.title} | ${r.server} | ${int(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${optionalInt(r.cpuMicrosPerRequest)} | ${ratio(r.ratioToFloor)} | ` +
          `${optionalInt(r.oidcProvider?.rps)} | ${optionalMs(r.oidcProvider?.p99)} | ${optionalInt(r.oidcProvider?.cpuMicrosPerRequest)} | ` +
          `${ratio(timesOidcProvider(r))} | ${answerMix(r.answers)} |`
        : `| ${r.title} | | | | | | | | | | | skipped: ${r.skipped} |`,
    ),
    '',
    '"oidc-provider" is node-oidc-provider v9 (test/bench/oidc-provider.mjs: the same clients, secrets and paths, its default in-memory adapter), ' +
      'running beside our server on the same CPU and loaded the same way. The two were measured in alternating rounds, one under load at a time ' +
      '(ours then its, then its then ours, and so on), because the machine\'s speed drifts within minutes; "× oidc-provider" is the median over rounds ' +
      'of our req/s over its req/s in the same round, so it can differ from the ratio of the two medians shown. ' +
      'The memory-store rows were measured beside the same oidc-provider setup as their SQLite ones, each with fresh requests.',
    '"CPU µs/request" is the server process\'s CPU time (user + system, from /proc/<pid>/stat) during a round divided by the requests it answered, ' +
      'median over rounds: lower is better, and unlike req/s it does not depend on how fast the load generator is. Cluster rows have none (several processes).',
    '"vs bare Koa" divides by the floor measured in the same run (the mean of its measurements at start and end): a bare Koa app with @koa/router and @koa/bodyparser reading the same form POST and answering a fixed JSON.',
    '"answers" counts every response by status and OAuth `error` (or the kind of success), so failures never pass as throughput.',
  ];
  const theirs = results.oidcProvider;
  if (theirs.length > 0) {
    out.push(
      '',
      '## node-oidc-provider in this run',
      '',
      `Its own rows, from the rounds that alternated with ours, beside the figures issue 7 quotes from a machine whose bare-Koa floor was ${int(issueFloor)} req/s. ` +
        'A title ending "(paired with svc, <variant>)" is the same requests again, measured beside that variant of our server.',
      '',
      '| scenario | req/s | p50 ms | p99 ms | CPU µs/request | vs bare Koa | issue 7 req/s | issue 7 vs its bare Koa | answers |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
      ...theirs.map((r) =>
        isRow(r)
          ? `| ${r.title} | ${int(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${optionalInt(r.cpuMicrosPerRequest)} | ${ratio(r.ratioToFloor)} | ` +
            `${optionalInt(r.oidcProvider?.quoted)} | ${ratio(r.oidcProvider?.quoted === undefined ? undefined : r.oidcProvider.quoted / issueFloor)} | ${answerMix(r.answers)} |`
          : `| ${r.title} | | | | | | | | skipped: ${r.skipped} |`,
      ),
    );
  }
  if (results.memory) {
    const mem = results.memory;
    const mib = (kib: number | undefined): string => (kib === undefined ? 'n/a' : `${(kib / 1024).toFixed(1)} MiB`);
    out.push(
      '',
      '## Memory',
      '',
      `Server RSS (VmRSS from /proc): ${mib(mem.idleKiB)} idle after start, ${mib(mem.beforeSoakKiB)} before a ${mem.soakSeconds} s soak, ` +
        `${mib(mem.afterSoakKiB)} after it. The soak sends a mix (client_credentials JWT and reference, introspection, delegation) at ` +
        `${int(mem.soakRps)} req/s; answers: ${answerMix(mem.soakAnswers)}.`,
    );
  }
  if (results.cluster.length > 0) {
    out.push('', '## Cluster mode', '');
    for (const c of results.cluster) {
      out.push(
        `- ${c.title} with \`workers: ${c.workers}\` ("auto") against \`workers: 1\`, neither pinned: ${int(c.allWorkers.rps)} vs ${int(c.oneWorker.rps)} req/s (${c.speedup.toFixed(2)}×).`,
        ...(c.signingThreads
          ? [
              `  One worker with \`signing.threads: ${c.signingThreads.threads}\`: ${int(c.signingThreads.row.rps)} req/s (${c.signingThreads.speedup.toFixed(2)}× one worker signing inline, ` +
                `${(c.signingThreads.row.rps / c.allWorkers.rps).toFixed(2)}× \`workers: ${c.workers}\`), p99 ${ms(c.signingThreads.row.p99)} ms against ${ms(c.allWorkers.p99)}.`,
            ]
          : []),
      );
    }
    out.push('', `The load generator stays on its own core${s.pinned ? ' (CPU 1)' : ''}, so on a two-core machine the workers share the CPUs with it.`);
  }
  if (results.signingPool.length > 0) {
    out.push(
      '',
      '## Signing on threads',
      '',
      'Issue 21 asked whether signing in a pool of worker threads would take a multi-core machine further. test/bench/signing-pool.mjs is the floor ' +
        '(bare Koa, the same form POST) plus one RS256 signature of an access-token-sized JWT per request, with the signature made inline, in node:cluster ' +
        'workers, or on worker threads (the service\'s own pool, src/oauth/keys/signing-threads.ts, as `signing.threads` runs it). Neither pinned; ' +
        'CPU µs/request counts every thread of the one process.',
      '',
      '| how the signature is made | req/s | p50 ms | p99 ms | CPU µs/request | × inline |',
      '|---|---:|---:|---:|---:|---:|',
      ...results.signingPool.map(({ title, row }) => {
        const inline = results.signingPool.find((p) => p.mode === 'inline')?.row.rps;
        return `| ${title} | ${int(row.rps)} | ${ms(row.p50)} | ${ms(row.p99)} | ${optionalInt(row.cpuMicrosPerRequest)} | ${inline ? ratio(row.rps / inline) : ''} |`;
      }),
    );
  }
  const sig = results.signatureMicros;
  const rowById = (id: string): Row | undefined => results.scenarios.filter(isRow).find((r) => r.id === id);
  const floorCpu = results.floor?.cpuMicrosPerRequest;
  if (sig && floorCpu !== undefined && ['cc-es256', 'cc-rs256'].some((id) => rowById(id)?.cpuMicrosPerRequest !== undefined)) {
    // What each row cannot do without: the floor, and the signatures it makes and checks.
    // Rows the service signs an RS256 ID token in (the default ID token algorithm) add that signature.
    const check = sig.verify?.ES256;
    const lines = signatureParts(sig).flatMap(([id, parts]) => {
      const r = rowById(id);
      if (r?.cpuMicrosPerRequest === undefined || parts.some(([, us]) => us === undefined)) return [];
      const bound = floorCpu + parts.reduce((sum, [, us]) => sum + us!, 0);
      const what = [`floor ${int(floorCpu)}`, ...parts.map(([name, us]) => `${name} ${int(us!)}`)].join(' + ');
      const theirs = r.oidcProvider?.cpuMicrosPerRequest;
      return [
        `| ${r.title} | ${int(r.cpuMicrosPerRequest)} | ${what} | ${int(bound)} | ${(r.cpuMicrosPerRequest / bound).toFixed(2)}× | ${optionalInt(theirs)} | ` +
          `${theirs === undefined ? '' : `${(theirs / bound).toFixed(2)}×`} |`,
      ];
    });
    // Issue 17: a DPoP-bound token should cost at most one signature check more than a bearer one.
    const dpopExtra = ([dpop, bearer, store]: readonly [string, string, string]): string[] => {
      const d = rowById(dpop)?.cpuMicrosPerRequest;
      const b = rowById(bearer)?.cpuMicrosPerRequest;
      return d === undefined || b === undefined ? [] : [`${store}: ${int(d)} − ${int(b)} = ${int(d - b)} µs`];
    };
    const extras = ([['cc-dpop', 'cc-es256', 'SQLite'], ['cc-dpop-memory', 'cc-es256-memory', 'memory store']] as const).flatMap(dpopExtra);
    const rsCluster = results.cluster.find((c) => c.title.includes('RS256'));
    out.push(
      '',
      '## The signature bound',
      '',
      `One access-token signature with the service's signer (node:crypto, the default keys) cost ${ms(Math.round(sig.ES256))} µs of CPU for ES256 (P-256) and ` +
        `${ms(Math.round(sig.RS256))} µs for RS256 (RSA-2048)` +
        (sig.verify ? `; one check of it ${ms(Math.round(sig.verify.ES256))} µs for ES256 and ${ms(Math.round(sig.verify.RS256))} µs for RS256` : '') +
        ', measured in the load generator\'s process before the rounds (test/bench/signature-cost.ts). ' +
        'A row is bound by the floor plus the signatures it makes and checks; "ours ÷ bound" says how close the service comes (below 1× is possible: cohort scheduling makes the floor\'s own work cheaper than bare Koa does), and the last two what node-oidc-provider spends on the same request and the most "× oidc-provider" (by CPU) a row could show at its bound. ' +
        'The bound leaves out everything else a row must do, such as the durable writes of a code redemption or a refresh' +
        (storeBounds(results).length > 0 ? ': "The signature and store bound" below adds them.' : '.'),
      '',
      '| scenario | CPU µs/request | bound: what it is made of (µs) | bound µs | ours ÷ bound | oidc-provider CPU µs/request | oidc-provider ÷ bound |',
      '|---|---:|---|---:|---:|---:|---:|',
      ...lines,
      ...(extras.length > 0 && check !== undefined
        ? ['', `A DPoP-bound token against a bearer one (issue 17 asks for at most one signature check more, ${int(check)} µs here): ${extras.join('; ')}.`]
        : []),
      ...(rsCluster
        ? [
            '',
            `More cores: RS256 with \`workers: ${rsCluster.workers}\` reached ${int(rsCluster.allWorkers.rps)} req/s against ${int(rsCluster.oneWorker.rps)} with one worker (${rsCluster.speedup.toFixed(2)}×, neither pinned)` +
              (rsCluster.signingThreads
                ? `, and one worker signing on ${rsCluster.signingThreads.threads} threads (\`signing.threads\`) ${int(rsCluster.signingThreads.row.rps)} (${rsCluster.signingThreads.speedup.toFixed(2)}×). See "Signing on threads" above.`
                : '.'),
          ]
        : []),
    );
  }
  out.push(...storeBoundSection(storeBounds(results)));
  const ceiling = results.postgresCeiling;
  const onPostgres = results.scenarios.filter(isRow).filter((r) => r.id.endsWith('-pg'));
  const pgClusters = results.cluster.filter((c) => c.title.includes('PostgreSQL'));
  const loop = results.postgresLoop;
  if ((ceiling || loop) && onPostgres.length > 0) {
    // What each row's statements reach in the loop: private_key_jwt writes twice (the assertion's jti, the token).
    // The code, refresh and DPoP rows are measured against their store floors instead (issue 40).
    const loopRate = (id: string): number | undefined =>
      loop === undefined ? undefined
        : id.startsWith('introspection') ? loop.select.perSecond
        : id.startsWith('private-key-jwt') ? loop.insert.perSecond / 2
        : id.startsWith('cc-reference') ? loop.insert.perSecond
        : undefined;
    const ceilingRps = (id: string): number | undefined => (['cc-reference', 'introspection', 'private-key-jwt'].some((p) => id.startsWith(p)) ? ceiling?.rps : undefined);
    const share = (rps: number, of: number | undefined): string => (of === undefined ? '' : `${Math.round((100 * rps) / of)}%`);
    out.push(
      '',
      '## PostgreSQL',
      '',
      ...(loop
        ? [
            `The ceiling without HTTP (test/bench/postgres-loop.mjs): the service's reference-token INSERT … ON CONFLICT in a tight loop, prepared, over a pool of 10 with ` +
              `${results.settings.connections} statements in flight, reached ${int(loop.insert.perSecond)} statements/s (p99 ${loop.insert.p99.toFixed(1)} ms, ${int(loop.insert.cpuMicros)} µs of Node CPU each); ` +
              `the read by key ${int(loop.select.perSecond)} statements/s (p99 ${loop.select.p99.toFixed(1)} ms, ${int(loop.select.cpuMicros)} µs). ` +
              '"Share of the loop" compares each row with what its statements alone reach: the insert for a reference token, the read for introspection, half the insert rate for private_key_jwt (it also records the assertion\'s `jti`). The loop sends one statement per row; the service sends the inserts of one event-loop turn as one statement and its reads by key as another (src/store/sql/postgres-grant-groups.ts), so a row can pass 100%.',
            '',
          ]
        : []),
      ...(ceiling
        ? [
            `Over HTTP: bare Koa with the same form POST plus the same insert (test/bench/bare-koa-pg.mjs): ${int(ceiling.rps)} req/s, p99 ${ms(ceiling.p99)} ms` +
              `${ceiling.cpuMicrosPerRequest === undefined ? '' : `, ${int(ceiling.cpuMicrosPerRequest)} µs of Node CPU per request`}` +
              `${loop ? ` (${share(ceiling.rps, loop.insert.perSecond)} of the loop)` : ''}. PostgreSQL's own processes are not pinned and their CPU is not counted in any figure.`,
            '',
          ]
        : []),
      '| scenario | req/s | p50 ms | p99 ms | CPU µs/request | share of the loop | share of bare Koa + insert |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...onPostgres.map((r) => `| ${r.title} | ${int(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${optionalInt(r.cpuMicrosPerRequest)} | ${share(r.rps, loopRate(r.id))} | ${share(r.rps, ceilingRps(r.id))} |`),
      ...pgClusters.map(({ id = 'cc-reference', allWorkers: r }) =>
        `| ${r.title} (two nodes, one database) | ${int(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | | ${share(r.rps, loopRate(id))} | ${share(r.rps, ceiling?.rps)} |`),
      '',
      'Only the reference-token row issues exactly the bare-Koa ceiling\'s statement; introspection reads instead of writing, and private_key_jwt also records the assertion\'s `jti`. ' +
        'The code, refresh and DPoP rows have no share of either: their yardstick is their store floor ("The signature and store bound").',
    );
  }
  if (results.notes.length) out.push('', '## Notes', '', ...results.notes.map((n) => `- ${n}`));
  return `${out.join('\n')}\n`;
}

/** The signatures of a bound as "ES256 signature 40 + …", or "none". */
const signed = (b: StoreBound): string => b.signatures.map(([name, us]) => `${name} ${int(us)}`).join(' + ') || 'none';

/** Issue 40: each durable row against the signature bound plus what its store calls cost (bounds.ts). */
function storeBoundSection(bounds: readonly StoreBound[]): string[] {
  if (bounds.length === 0) return [];
  return [
    '',
    '## The signature and store bound',
    '',
    'The signature bound leaves out the store. Each durable row also has a store floor in this run: bare Koa answering the row\'s own requests with exactly ' +
      'the store calls the row makes and nothing else (test/bench/bare-koa-store.mjs over test/bench/store-floor.ts: the service\'s own store, migrated, ' +
      'the same prepared statements, the same transactions, records of the same shapes and sizes; codes and refresh tokens seeded before each round). ' +
      'Its CPU per request less the floor\'s is what the store calls cost ("store part"); bound = signature bound + store part, which is the store floor ' +
      'plus the signatures, and "ours ÷ bound" is how much more the service spends than Koa, those store calls and those signatures. ' +
      'PostgreSQL\'s own processes are not counted on either side.' +
      (bounds.some((b) => b.paired)
        ? ' Rows marked "beside" ran in rounds alternating with their store floor, with the signatures measured just before them: their store floor and ' +
          'signatures are of the same minutes, and "ours ÷ bound" is the median over rounds of the row\'s CPU over its floor\'s in the same round plus the ' +
          'signatures, so a machine that slows down during the run slows both sides alike. The signature bound and the store part are against the floor ' +
          'measured at the start of the run.'
        : ''),
    '',
    '| scenario | store | CPU µs/request | signatures (µs) | signature bound µs | store floor µs/request | store part µs | bound µs | ours ÷ bound |',
    '|---|---|---:|---|---:|---:|---:|---:|---:|',
    ...bounds.map((b) =>
      `| ${b.row.title} | ${b.store} | ${int(b.row.cpuMicrosPerRequest!)} | ${signed(b)} | ${optionalInt(b.signatureBound)} | ` +
        `${int(b.storeFloor.cpuMicrosPerRequest!)}${b.paired ? ' (beside)' : ''} | ${optionalInt(b.storePart)} | ${int(b.bound)} | ${ratio(b.oursOverBound)} |`),
  ];
}

/** The same for the console: each durable row's bound and how far above it the row is. */
export function consoleBounds(results: BenchResults): string | undefined {
  const bounds = storeBounds(results);
  if (bounds.length === 0) return undefined;
  const header = ['scenario (bound = signature bound + store part)', 'store', 'CPU µs/req', 'signature bound', 'store floor', 'store part', 'bound', 'ours ÷ bound'];
  const lines = bounds.map((b) => [
    b.row.title, b.store, int(b.row.cpuMicrosPerRequest!), optionalInt(b.signatureBound), `${int(b.storeFloor.cpuMicrosPerRequest!)}${b.paired ? ' (beside)' : ''}`, optionalInt(b.storePart), int(b.bound), ratio(b.oursOverBound),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]): string => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)].join('\n');
}

export function chart(results: BenchResults): string {
  const bars: Bar[] = [];
  if (results.floor) bars.push({ label: 'bare Koa (floor)', value: results.floor.rps, color: '#9e9e9e' });
  if (results.floorAtEnd) bars.push({ label: 'bare Koa (floor), end of run', value: results.floorAtEnd.rps, color: '#9e9e9e' });
  if (results.postgresCeiling) bars.push({ label: 'bare Koa + one PostgreSQL insert (ceiling)', value: results.postgresCeiling.rps, color: '#9e9e9e' });
  for (const r of results.storeFloors ?? []) if (isRow(r)) bars.push({ label: r.title, value: r.rps, color: '#9e9e9e' });
  for (const r of results.scenarios) {
    if (isRow(r)) bars.push({ label: r.title, value: r.rps, color: '#4c78a8', reference: r.oidcProvider?.rps });
  }
  for (const c of results.cluster) {
    bars.push({ label: c.oneWorker.title, value: c.oneWorker.rps, color: '#f58518' });
    bars.push({ label: c.allWorkers.title, value: c.allWorkers.rps, color: '#f58518' });
    if (c.signingThreads) bars.push({ label: c.signingThreads.row.title, value: c.signingThreads.row.rps, color: '#f58518' });
  }
  const m = results.machine;
  return barChart({
    title: 'Token service throughput (median req/s, higher is better)',
    subtitle: `${m.cpu}, ${m.cores} cores, Node ${m.node}, ${results.date.slice(0, 10)}; ${results.settings.connections} connections${results.settings.pinned ? '; server on one core' : ''}`,
    unit: 'requests per second',
    bars,
    legend: [
      { color: '#9e9e9e', label: 'bare Koa floor' },
      { color: '#4c78a8', label: 'svc, one core' },
      { color: '#f58518', label: 'cluster mode, unpinned' },
      { color: '#222', label: 'node-oidc-provider, same requests, same run', tick: true },
    ],
  });
}

export function writeResults(dir: string, results: BenchResults): string[] {
  mkdirSync(dir, { recursive: true });
  const files = {
    'results.json': `${JSON.stringify(results, null, 2)}\n`,
    'results.md': markdown(results),
    'throughput.svg': chart(results),
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return Object.keys(files).map((name) => join(dir, name));
}
