/**
 * `npm run bench`: starts the bare-Koa floor and the service as a user would, with
 * node-oidc-provider beside it, drives each scenario with autocannon, soaks for memory, compares
 * cluster mode, and writes the results. Asserts nothing about speed; see docs/bench/README.md
 * for how to read the numbers.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFixture, freePort } from './fixture.js';
import { answerMix, consoleBounds, consoleTable, machineInfo, writeResults, type BenchResults, type Row, type Skipped } from './report.js';
import { runRound } from './measure.js';
import { signatureCosts } from './signature-cost.js';
import { named, readOptions, wanted } from './options.js';
import { runStoreSoak } from './store-soak.js';
import { canPin, loadCpu, pinSelf, runPostgresLoop, serverCpu, startBareKoa, startBareKoaPostgres, startOidcProvider, startService, startSigningServer, startStoreFloor, type PostgresLoopResult, type ServerProcess } from './processes.js';
import { openBenchPostgres, type BenchPostgres } from './postgres.js';
import { runScenario, type Bench, type Side, type StoreFloorBeside } from './run-scenario.js';
import { storeFloorOf } from './bounds.js';
import { pinPostgres, type PinnedPostgres } from './pin-postgres.js';
import { floorScenario, postgresCeilingScenario, scenarios, soakMix, type Scenario, type ServerKind } from './scenarios.js';
import { storeFloorScenarios } from './store-floor-scenarios.js';

const log = (line = ''): void => void process.stdout.write(`${line}\n`);

/** node-oidc-provider beside our server, for the scenarios that have it as a counterpart. */
type Counterpart = (scenario: Scenario) => Side | undefined;
const noCounterpart: Counterpart = () => undefined;
/** The store floor beside a durable row (issue 40), for the rows that have one in this run. */
type FloorPairing = (scenario: Scenario) => StoreFloorBeside | undefined;
const noFloor: FloorPairing = () => undefined;

interface Variant {
  readonly title: string;
  readonly store: string;
  readonly accessTokenAlgorithm?: 'RS256';
  readonly logLevel?: 'warn';
}

/** Servers with one setting changed from the ES256/SQLite one, each running its own scenarios. */
const variants = {
  memory: { title: 'svc, memory store (as node-oidc-provider\'s default in-memory adapter)', store: 'memory' },
  rs256: { title: 'svc, RS256 access tokens (signing.accessTokenAlgorithm: "RS256")', store: 'sqlite:./rs256/svc.db', accessTokenAlgorithm: 'RS256' },
  warn: { title: 'svc, logLevel "warn" (no line per token issued)', store: 'sqlite:./warn/svc.db', logLevel: 'warn' },
} as const satisfies Record<string, Variant>;

async function stopServer(server: ServerProcess, name: string, notes: string[]): Promise<void> {
  const code = await server.stop();
  if (code !== 0) {
    notes.push(`${name} exited with code ${code} when stopped.`);
    log(`  ${name} exited with code ${code}:\n${server.output().slice(-2000)}`);
  }
}

export async function runBenchmark(): Promise<number> {
  const options = readOptions();
  const startedAt = Date.now();
  const pinned = canPin();
  if (pinned) pinSelf(loadCpu);
  const pinning = pinned
    ? `Servers pinned to CPU ${serverCpu} with taskset -c ${serverCpu}; the load generator (autocannon, this process) to CPU ${loadCpu}.`
    : 'Not pinned: taskset or a second CPU is missing, so server and load generator share the CPUs.';
  const machine = machineInfo();
  const notes: string[] = [];
  log(`svc benchmark — ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`);
  log(pinning);
  if ((machine.loadAverageAtStart[0] ?? 0) > 0.5) {
    const warning = `Load average was ${machine.loadAverageAtStart.join(' / ')} at start: other processes are using the CPUs, so figures are lower and noisier than on an idle machine.`;
    notes.push(warning);
    log(`warning: ${warning}`);
  }
  log(`${options.connections} connections; ${options.warmupSeconds} s warm-up + ${options.rounds} × ${options.seconds} s per scenario; soak ${options.soakSeconds} s`);
  log();

  const fixture = await createFixture(options.assertionAlg);
  const signatures = signatureCosts();
  log(
    `one access-token signature in this process (CPU ${loadCpu}): ES256 ${signatures.ES256.toFixed(0)} µs, RS256 ${signatures.RS256.toFixed(0)} µs of CPU; ` +
      `one check: ES256 ${signatures.verify.ES256.toFixed(0)} µs, RS256 ${signatures.verify.RS256.toFixed(0)} µs`,
  );
  const cpu = pinned ? serverCpu : undefined;
  const bench: Bench = { options, fixture, log };
  // Each kind of server keeps its own record of what it measured (which sizes assertion pools and device codes).
  const ourMeasured = new Map<string, number>();
  const theirMeasured = new Map<string, number>();
  const rows: Array<Row | Skipped> = [];
  const theirRows: Array<Row | Skipped> = [];
  let floor: Row | undefined;
  let floorAtEnd: Row | undefined;
  let postgresCeiling: Row | undefined;
  // Issue 40: bare Koa plus each durable row's store calls, on SQLite and on PostgreSQL.
  const storeFloors: Array<Row | Skipped> = [];
  let postgresLoop: PostgresLoopResult | undefined;
  let postgres: BenchPostgres | { skipped: string } | undefined;
  let pinnedPostgres: PinnedPostgres | undefined;
  let memory: BenchResults['memory'];
  const cluster: Array<BenchResults['cluster'][number]> = [];
  const signingPool: Array<BenchResults['signingPool'][number]> = [];
  const pinnedLabel = (name: string): string => (pinned ? `${name}, CPU ${serverCpu}` : name);
  const sideOf = (server: ServerProcess, name: string, measured: Map<string, number>): Side => ({ url: server.url, pid: server.pid, label: pinnedLabel(name), measured });
  // BENCH_CPU_PROF: every single-core service writes a CPU profile there when it stops.
  const nodeArgs: string[] = [];
  if (options.cpuProfileDir) {
    mkdirSync(options.cpuProfileDir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`);
  }

  try {
    const measureFloor = async (title: string): Promise<Row | undefined> => {
      log(title);
      const server = await startBareKoa({ port: await freePort(), cpu });
      try {
        const { ours: row } = await runScenario(bench, floorScenario, sideOf(server, 'bare Koa', ourMeasured), undefined, title);
        return 'skipped' in row ? undefined : row;
      } finally {
        await stopServer(server, 'bare Koa', notes);
      }
    };
    if (wanted(options, 'floor')) floor = await measureFloor(floorScenario.title);

    // One store floor server per store, up beside the svc server whose durable rows it stands
    // beside: each such row runs in rounds alternating with its store floor, so a machine that
    // slows down during the run (the floor drifted by 40 % in the full run of 2026-12-01) slows
    // both alike. A chosen floor whose row is not chosen is measured on its own afterwards.
    const besideStoreFloor = async (chosen: readonly Scenario[], store: string, what: 'SQLite' | 'PostgreSQL', body: (pairing: FloorPairing) => Promise<void>): Promise<void> => {
      if (chosen.length === 0) return body(noFloor);
      log(`bare Koa + the store calls of each durable row (${what}, the service's own store; stays up beside the svc server below)`);
      const server = await startStoreFloor({ port: await freePort(), cpu, store });
      try {
        const side = sideOf(server, `bare Koa + ${what}`, ourMeasured);
        const paired = new Set<string>();
        const suffix = what === 'PostgreSQL' ? '-pg' : '';
        await body((scenario) => {
          const floorId = storeFloorOf.find(([id]) => `${id}${suffix}` === scenario.id)?.[1];
          const floor = floorId === undefined ? undefined : chosen.find((s) => s.id === `${floorId}${suffix}`);
          if (floor) paired.add(floor.id);
          return floor && { scenario: floor, side };
        });
        for (const scenario of chosen) if (!paired.has(scenario.id)) storeFloors.push((await runScenario(bench, scenario, side)).ours);
      } finally {
        await stopServer(server, `bare Koa + ${what}`, notes);
      }
    };
    const chosenFloors = (kind: ServerKind): Scenario[] => storeFloorScenarios.filter((s) => s.server === kind && wanted(options, s.id));
    const sqliteFloors = chosenFloors('store-floor-sqlite');
    const postgresFloors = chosenFloors('store-floor-postgres');

    const run = async (scenario: Scenario, ours: Side, counterpart: Counterpart, pairing: FloorPairing = noFloor): Promise<void> => {
      const floor = pairing(scenario);
      // A paired row's bound uses the signature costs of its own time, as its floor does.
      const signatureMicros = floor && signatureCosts();
      const { ours: row, theirs, storeFloor } = await runScenario(bench, scenario, ours, counterpart(scenario), undefined, floor);
      rows.push(row);
      if (theirs) theirRows.push(theirs);
      if (storeFloor) storeFloors.push('skipped' in storeFloor ? storeFloor : { ...storeFloor, signatureMicros });
    };

    // node-oidc-provider is started before our servers and stays up beside them (the same CPU, one
    // under load at a time), so each scenario can alternate rounds between the two.
    const besideOidcProvider = async (setup: 'es256' | 'rs256', chosen: readonly Scenario[], body: (counterpart: Counterpart) => Promise<void>): Promise<void> => {
      if (!chosen.some((s) => s.oidcProvider?.setup === setup)) return body(noCounterpart);
      const port = await freePort();
      const accessTokenAlgorithm = setup === 'es256' ? 'ES256' : 'RS256';
      const settingsFile = fixture.writeOidcProviderSettings(setup, { port, accessTokenAlgorithm });
      log(`node-oidc-provider, ${accessTokenAlgorithm} JWT access tokens, in-memory adapter (stays up beside the svc servers below)`);
      const server = await startOidcProvider({ settingsFile, port, cpu });
      try {
        const theirs = sideOf(server, 'node-oidc-provider', theirMeasured);
        await body((scenario) => (scenario.oidcProvider?.setup === setup ? theirs : undefined));
      } finally {
        await stopServer(server, 'node-oidc-provider', notes);
      }
    };

    const chosenOn = (kind: ServerKind): Scenario[] => scenarios.filter((s) => s.server === kind && wanted(options, s.id));
    const es256 = chosenOn('es256');
    const onMemory = chosenOn('memory');
    const atWarn = chosenOn('warn');
    const rs256 = chosenOn('rs256');
    const onPostgres = chosenOn('postgres');
    const storeSoak = named(options, 'soak-store');
    const wantsPostgres = onPostgres.length > 0 || postgresFloors.length > 0 || wanted(options, 'pg-ceiling') || wanted(options, 'pg-loop') || wanted(options, 'cluster') || storeSoak;
    // PostgreSQL rows need the server; without one they are listed as skipped, with the reason.
    if (wantsPostgres) {
      postgres = await openBenchPostgres();
      if ('skipped' in postgres) log(`PostgreSQL rows skipped: ${postgres.skipped}`);
      else if (pinned && !options.pinPostgres) notes.push('PostgreSQL was left free to run on any CPU (BENCH_PIN_POSTGRES=0), the measured server\'s too.');
      else if (pinned) {
        const moved = pinPostgres(postgres.backendPid, loadCpu);
        if ('skipped' in moved) notes.push(`PostgreSQL was not pinned: ${moved.skipped}; it shared the measured server's CPU.`);
        else pinnedPostgres = moved;
        log('skipped' in moved ? `PostgreSQL not pinned: ${moved.skipped}` : moved.note);
      }
    }
    const soak = wanted(options, 'soak') && options.soakSeconds > 0;

    const runEs256 = async (counterpart: Counterpart, pairing: FloorPairing): Promise<void> => {
      const port = await freePort();
      const configFile = fixture.writeConfig('es256', { port, store: 'sqlite:./es256/svc.db' });
      log(`svc, ES256 access tokens (SQLite store${nodeArgs.length ? ', --cpu-prof' : ''})`);
      const server = await startService({ configFile, port, cpu, nodeArgs });
      const idleKiB = server.rssKiB();
      try {
        const ours = sideOf(server, 'svc', ourMeasured);
        for (const scenario of es256) await run(scenario, ours, counterpart, pairing);
        if (soak) {
          log(`  memory soak, ${options.soakSeconds} s`);
          const mix = await soakMix({ url: server.url, implementation: 'svc', fixture, measured: ourMeasured });
          const beforeSoakKiB = server.rssKiB();
          const round = await runRound(server.url, mix, options.soakSeconds, options.connections);
          const afterSoakKiB = server.rssKiB();
          memory = { idleKiB, beforeSoakKiB, afterSoakKiB, soakSeconds: options.soakSeconds, soakRps: round.rps, soakAnswers: round.answers };
          const mib = (k: number | undefined): string => (k === undefined ? 'n/a' : `${(k / 1024).toFixed(1)} MiB`);
          log(`    RSS idle ${mib(idleKiB)}, before soak ${mib(beforeSoakKiB)}, after ${mib(afterSoakKiB)}; ${Math.round(round.rps)} req/s; answers: ${answerMix(round.answers)}`);
        }
      } finally {
        await stopServer(server, 'svc (ES256)', notes);
      }
      if (options.cpuProfileDir) {
        const profiles = readdirSync(options.cpuProfileDir).filter((f) => f.endsWith('.cpuprofile'));
        log(`  CPU profiles in ${options.cpuProfileDir}: ${profiles.join(', ') || 'none written'}`);
        log(`  summarise with: node test/bench/cpuprofile-top.mjs ${join(options.cpuProfileDir, profiles.at(-1) ?? '<file>.cpuprofile')}`);
      }
    };

    const runVariant = async (kind: keyof typeof variants | 'postgres', chosen: readonly Scenario[], counterpart: Counterpart, pairing: FloorPairing = noFloor): Promise<void> => {
      const variant: Variant =
        kind === 'postgres' ? { title: 'svc, PostgreSQL store (one node)', store: (postgres as BenchPostgres).serviceUrl } : variants[kind];
      const port = await freePort();
      const configFile = fixture.writeConfig(kind, {
        port, store: variant.store,
        ...(variant.accessTokenAlgorithm ? { accessTokenAlgorithm: variant.accessTokenAlgorithm } : {}),
        ...(variant.logLevel ? { logLevel: variant.logLevel } : {}),
      });
      log(variant.title);
      const server = await startService({ configFile, port, cpu, nodeArgs });
      try {
        const ours = sideOf(server, `svc, ${kind}`, ourMeasured);
        for (const scenario of chosen) await run(scenario, ours, counterpart, pairing);
      } finally {
        await stopServer(server, `svc (${kind})`, notes);
      }
      if (options.cpuProfileDir) log(`  CPU profile written to ${options.cpuProfileDir}`);
    };

    // The memory-store scenarios repeat ES256 ones, so oidc-provider's ES256 setup stays up for them too.
    await besideOidcProvider('es256', [...es256, ...onMemory, ...atWarn], async (counterpart) => {
      await besideStoreFloor(sqliteFloors, `sqlite:${join(fixture.dir, 'store-floor', 'svc.db')}`, 'SQLite', async (pairing) => {
        if (es256.length > 0 || soak) await runEs256(counterpart, pairing);
      });
      if (onMemory.length > 0) await runVariant('memory', onMemory, counterpart);
      if (atWarn.length > 0) await runVariant('warn', atWarn, counterpart);
    });
    if (rs256.length > 0) await besideOidcProvider('rs256', rs256, (counterpart) => runVariant('rs256', rs256, counterpart));

    if (postgres && 'skipped' in postgres) {
      for (const s of onPostgres) rows.push({ id: s.id, title: s.title, skipped: postgres.skipped });
      for (const s of postgresFloors) storeFloors.push({ id: s.id, title: s.title, skipped: postgres.skipped });
    } else if (postgres) {
      const ready = postgres;
      if (wanted(options, 'pg-loop')) {
        const seconds = options.seconds * options.rounds;
        log(`PostgreSQL ceiling without HTTP: the reference-token insert, then the read by key, ${seconds} s each, ${options.connections} in flight, pool of 10`);
        try {
          postgresLoop = await runPostgresLoop({ url: ready.ceilingUrl, seconds, inFlight: options.connections, cpu });
          const line = (what: string, r: PostgresLoopResult['insert']): string =>
            `    ${what}: ${Math.round(r.perSecond)} statements/s, p99 ${r.p99.toFixed(1)} ms, ${Math.round(r.cpuMicros)} µs of Node CPU each`;
          log(line('insert', postgresLoop.insert));
          log(line('read by key', postgresLoop.select));
        } catch (error) {
          notes.push(`The PostgreSQL loop failed: ${(error as Error).message.split('\n')[0]}`);
          log(`    failed: ${(error as Error).message}`);
        }
      }
      if (wanted(options, 'pg-ceiling')) {
        log(postgresCeilingScenario.title);
        const server = await startBareKoaPostgres({ port: await freePort(), cpu, url: ready.ceilingUrl });
        try {
          const { ours: row } = await runScenario(bench, postgresCeilingScenario, sideOf(server, 'bare Koa + pg', ourMeasured));
          if (!('skipped' in row)) postgresCeiling = row;
        } finally {
          await stopServer(server, 'bare Koa + pg', notes);
        }
      }
      await besideStoreFloor(postgresFloors, ready.floorUrl, 'PostgreSQL', async (pairing) => {
        if (onPostgres.length > 0) await runVariant('postgres', onPostgres, noCounterpart, pairing);
      });
      if (storeSoak) {
        try {
          await runStoreSoak(bench, ready, { ...options.storeSoak, cpu, outDir: options.outDir });
        } catch (error) {
          notes.push(`The store soak failed: ${(error as Error).message.split('\n')[0]}`);
          log(`    failed: ${(error as Error).message}`);
        }
      }
    }

    // The cluster rows are not pinned: PostgreSQL gets its CPUs back for them.
    pinnedPostgres?.restore();

    if (wanted(options, 'cluster')) {
      const all = cpus().length; // not availableParallelism(): this process is pinned to one CPU
      // JWTs touch no store; reference tokens show what sharing one SQLite file between workers costs.
      const compared = [
        ['cc-es256', 'client_credentials → JWT ES256', 'es256'],
        ['cc-reference', 'client_credentials → reference token (SQLite)', 'reference'],
        // RS256 is bound by the RSA signature: whether more cores take it further (issue 21).
        ['cc-es256', 'client_credentials → JWT RS256', 'rs256'],
        // Two nodes sharing one database: the workers are separate processes, each with its own
        // pool. Issue 21 asks for each PostgreSQL row on one node and on two.
        ...(postgres && !('skipped' in postgres)
          ? ([
              ['cc-reference', 'client_credentials → reference token (PostgreSQL)', 'postgres'],
              ['introspection', 'introspection of a reference token by an API (PostgreSQL)', 'postgres'],
              ['private-key-jwt', 'private_key_jwt (fresh assertion each) → reference token (PostgreSQL)', 'postgres'],
            ] as const)
          : []),
      ] as const;
      for (const [id, what, name] of compared) {
        const base = scenarios.find((s) => s.id === id)!;
        const results: Row[] = [];
        // JWTs also run in one process with a signing thread per core (`signing.threads`, issue 21).
        const setups = [[1, 1, 0], ['auto', all, 0], ...(name === 'rs256' || name === 'es256' ? [[1, 1, all] as const] : [])] as const;
        for (const [workers, count, threads] of setups) {
          const port = await freePort();
          const setup = `${id}-${workers}${threads ? `-threads-${threads}` : ''}`;
          // logLevel info, the default, like every row but the "warn" one: the "svc listening"
          // line of each worker tells when all are up.
          const store = name === 'postgres' ? (postgres as BenchPostgres).serviceUrl : `sqlite:./cluster-${name}-${setup}/svc.db`;
          const configFile = fixture.writeConfig(`cluster-${name}-${setup}`, {
            port, store, workers, signingThreads: threads, ...(name === 'rs256' ? { accessTokenAlgorithm: 'RS256' as const } : {}),
          });
          const title = `${what}, workers: ${workers === 'auto' ? `"auto" (${count})` : 1}${threads ? `, signing.threads: ${threads}` : ''}`;
          log(`svc, cluster mode, workers: ${workers}${threads ? `, signing.threads: ${threads}` : ''} (not pinned)`);
          const server = await startService({ configFile, port, workers: count });
          try {
            // A CPU figure only for one process (its threads included): a cluster spreads the work over several.
            const ours: Side = { url: server.url, pid: count === 1 ? server.pid : undefined, label: 'svc, unpinned', measured: ourMeasured };
            const { ours: row } = await runScenario(bench, base, ours, undefined, title);
            if (!('skipped' in row)) results.push({ ...row, id: `cluster-${name}-${setup}`, oidcProvider: undefined });
          } finally {
            await stopServer(server, `svc (workers: ${workers}, threads: ${threads})`, notes);
          }
        }
        if (results.length === setups.length) {
          const threaded = results[2];
          cluster.push({
            id, title: what, workers: all, oneWorker: results[0]!, allWorkers: results[1]!, speedup: results[1]!.rps / results[0]!.rps,
            ...(threaded ? { signingThreads: { threads: all, row: threaded, speedup: threaded.rps / results[0]!.rps } } : {}),
          });
        }
      }
    }

    // Issue 21: would a pool of signing threads take one process further than signing inline,
    // and further than cluster mode? The floor plus one RS256 signature, nothing else, unpinned.
    if (wanted(options, 'signing-pool')) {
      const all = cpus().length;
      const modes = [
        ['inline', 1, 'one process, signing inline'],
        ['cluster', all, `node:cluster, ${all} processes, each signing inline`],
        ['pool', 1, 'one process, a pool of 1 signing thread'],
        ['pool', all, `one process, a pool of ${all} signing threads`],
      ] as const;
      for (const [mode, count, what] of modes) {
        const title = `bare Koa + one RS256 signature: ${what}`;
        log(`${title} (not pinned)`);
        const server = await startSigningServer({ port: await freePort(), mode, count });
        try {
          // CPU per request only where one process does all the work (its threads included).
          const ours: Side = { url: server.url, pid: mode === 'cluster' ? undefined : server.pid, label: 'unpinned', measured: ourMeasured };
          const { ours: row } = await runScenario(bench, floorScenario, ours, undefined, title);
          if (!('skipped' in row)) signingPool.push({ mode, count, title: what, row: { ...row, id: `signing-${mode}-${count}`, oidcProvider: undefined } });
        } finally {
          await stopServer(server, `signing server (${mode} ${count})`, notes);
        }
      }
    }

    // The floor again: a drift between start and end shows other work on the machine.
    if (floor && (rows.length > 0 || storeFloors.length > 0 || cluster.length > 0 || signingPool.length > 0)) floorAtEnd = await measureFloor('bare Koa (floor), again at the end');
  } finally {
    rmSync(fixture.dir, { recursive: true, force: true });
    pinnedPostgres?.restore();
    if (postgres && !('skipped' in postgres)) await postgres.drop();
  }

  // Ratios are to the mean of the floor at start and at end.
  const floorRps = floor && (floorAtEnd ? (floor.rps + floorAtEnd.rps) / 2 : floor.rps);
  const withFloor = <T extends Row | Skipped>(r: T): T =>
    'skipped' in r || floorRps === undefined ? r : { ...r, ratioToFloor: r.rps / floorRps };
  if (floor && floorAtEnd && Math.abs(floorAtEnd.rps - floor.rps) / floor.rps > 0.1) {
    notes.push(
      `The floor moved from ${Math.round(floor.rps)} req/s at start to ${Math.round(floorAtEnd.rps)} at end: the machine's other load changed during the run, so compare rows with care.`,
    );
  }
  const scenarioNotes = [...storeFloors, ...rows, ...theirRows].flatMap((r) => ('skipped' in r ? [`${r.title}: skipped — ${r.skipped}.`] : r.note ? [`${r.title}: ${r.note}.`] : []));
  const command = ['npm run bench', ...Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_')).map(([k, v]) => `${k}=${v}`)];
  const results: BenchResults = {
    date: new Date().toISOString(),
    command: command.length > 1 ? `${command.slice(1).join(' ')} ${command[0]}` : command[0]!,
    machine: { ...machine, loadAverageAtEnd: loadavg().map((n) => Math.round(n * 100) / 100) },
    settings: {
      connections: options.connections,
      warmupSeconds: options.warmupSeconds,
      roundSeconds: options.seconds,
      rounds: options.rounds,
      pinned,
      pinning: pinnedPostgres ? `${pinning} ${pinnedPostgres.note}` : pinning,
      assertionAlg: options.assertionAlg,
    },
    floor: floor && withFloor(floor),
    floorAtEnd: floorAtEnd && withFloor(floorAtEnd),
    postgresCeiling: postgresCeiling && withFloor(postgresCeiling),
    storeFloors: storeFloors.map(withFloor),
    postgresLoop,
    signatureMicros: signatures,
    scenarios: rows.map(withFloor),
    oidcProvider: theirRows.map(withFloor),
    memory,
    cluster: cluster.map((c) => ({
      ...c, oneWorker: withFloor(c.oneWorker), allWorkers: withFloor(c.allWorkers),
      ...(c.signingThreads ? { signingThreads: { ...c.signingThreads, row: withFloor(c.signingThreads.row) } } : {}),
    })),
    signingPool: signingPool.map((p) => ({ ...p, row: withFloor(p.row) })),
    notes: [
      ...notes,
      ...scenarioNotes,
      'Every svc row runs at the default logLevel "info" (one log line per token issued), except the one whose title says "warn".',
    ],
  };

  log();
  log(consoleTable(results));
  log();
  const bounds = consoleBounds(results);
  if (bounds) log(`${bounds}\n`);
  log('oidc-provider: node-oidc-provider v9 on the same requests (test/bench/oidc-provider.mjs), in rounds alternating with ours;');
  log('× oidc-provider = median over rounds of our req/s over its in the same round; CPU µs/req = server CPU time (user + system) per request answered.');
  const outDir = options.outDir ?? mkdtempSync(join(tmpdir(), 'svc-bench-results-'));
  for (const file of writeResults(outDir, results)) log(`wrote ${file}`);
  log(`done in ${Math.round((Date.now() - startedAt) / 1000)} s`);
  return 0;
}
