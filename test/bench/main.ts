/**
 * `npm run bench`: starts the bare-Koa floor and the service as a user would, drives each
 * scenario with autocannon, soaks for memory, compares cluster mode, and writes the results.
 * Asserts nothing about speed; see docs/bench/README.md for how to read the numbers.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFixture, freePort, type BenchFixture } from './fixture.js';
import { answerMix, consoleTable, machineInfo, writeResults, type BenchResults, type Row, type Skipped } from './report.js';
import { measure, runRound, type ScenarioResult } from './measure.js';
import { readOptions, wanted, type BenchOptions } from './options.js';
import { canPin, loadCpu, pinSelf, serverCpu, startBareKoa, startOidcProvider, startService, type ServerProcess } from './processes.js';
import { floorScenario, scenarios, soakMix, type Scenario, type ScenarioContext } from './scenarios.js';

const log = (line = ''): void => void process.stdout.write(`${line}\n`);

interface Runner {
  readonly options: BenchOptions;
  readonly fixture: BenchFixture;
  readonly measured: Map<string, number>;
}

async function runScenario(runner: Runner, scenario: Scenario, url: string, server: string, title = scenario.title): Promise<Row | Skipped> {
  const { options, fixture, measured } = runner;
  log(`  ${title}`);
  const ctx: ScenarioContext = { url, fixture, measured };
  let prepared;
  try {
    prepared = await scenario.prepare(ctx);
  } catch (err) {
    const reason = `preparation failed: ${(err as Error).message}`;
    log(`    skipped: ${reason}`);
    return { id: scenario.id, title, skipped: reason };
  }
  if ('skipped' in prepared) {
    log(`    skipped: ${prepared.skipped}`);
    return { id: scenario.id, title, skipped: prepared.skipped };
  }
  const result: ScenarioResult = await measure(url, prepared.spec, {
    warmupSeconds: options.warmupSeconds,
    seconds: options.seconds,
    rounds: options.rounds,
    connections: options.connections,
    beforeRound: prepared.beforeRound,
    expectedRate: prepared.expectedRate,
    log,
  });
  measured.set(scenario.id, result.rps);
  const note = prepared.note?.();
  log(`    median ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms; answers: ${answerMix(result.answers)}`);
  if (note) log(`    ${note}`);
  const oidcProvider = scenario.oidcProvider && { rps: undefined, p99: undefined, quoted: scenario.oidcProvider.quoted };
  return { id: scenario.id, title, server, ...result, ratioToFloor: undefined, oidcProvider, note };
}

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
  const cpu = pinned ? serverCpu : undefined;
  const runner: Runner = { options, fixture, measured: new Map() };
  const rows: Array<Row | Skipped> = [];
  const theirRows: Array<Row | Skipped> = [];
  let floor: Row | undefined;
  let floorAtEnd: Row | undefined;
  let memory: BenchResults['memory'];
  const cluster: Array<BenchResults['cluster'][number]> = [];
  const pinnedLabel = (name: string): string => (pinned ? `${name}, CPU ${serverCpu}` : name);
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
        const row = await runScenario(runner, floorScenario, server.url, pinnedLabel('bare Koa'), title);
        return 'skipped' in row ? undefined : row;
      } finally {
        await stopServer(server, 'bare Koa', notes);
      }
    };
    if (wanted(options, 'floor')) floor = await measureFloor(floorScenario.title);

    // node-oidc-provider runs the scenarios that have a counterpart, with its own record of what
    // it measured (which sizes the assertion pool and device codes).
    const theirRunner: Runner = { ...runner, measured: new Map() };
    const measureOidcProvider = async (setup: 'es256' | 'rs256'): Promise<void> => {
      const chosen = scenarios.filter(
        (s) => s.oidcProvider?.setup === setup && s.repeats === undefined && scenarios.some((t) => (t.id === s.id || t.repeats === s.id) && wanted(options, t.id)),
      );
      if (chosen.length === 0) return;
      const port = await freePort();
      const settingsFile = fixture.writeOidcProviderSettings(setup, { port, accessTokenAlgorithm: setup === 'es256' ? 'ES256' : 'RS256' });
      log(`node-oidc-provider, ${setup === 'es256' ? 'ES256' : 'RS256'} JWT access tokens, in-memory adapter`);
      const server = await startOidcProvider({ settingsFile, port, cpu });
      try {
        for (const scenario of chosen) theirRows.push(await runScenario(theirRunner, scenario, server.url, pinnedLabel('node-oidc-provider'), `node-oidc-provider: ${scenario.title.replace(' (SQLite)', '')}`));
      } finally {
        await stopServer(server, 'node-oidc-provider', notes);
      }
    };

    const es256 = scenarios.filter((s) => s.server === 'es256' && wanted(options, s.id));
    const soak = wanted(options, 'soak') && options.soakSeconds > 0;
    if (es256.length > 0 || soak) {
      const port = await freePort();
      const configFile = fixture.writeConfig('es256', { port, store: 'sqlite:./es256/svc.db' });
      log(`svc, ES256 access tokens (SQLite store${nodeArgs.length ? ', --cpu-prof' : ''})`);
      const server = await startService({ configFile, port, cpu, nodeArgs });
      const idleKiB = server.rssKiB();
      try {
        for (const scenario of es256) rows.push(await runScenario(runner, scenario, server.url, pinnedLabel('svc')));
        if (soak) {
          log(`  memory soak, ${options.soakSeconds} s`);
          const mix = await soakMix({ url: server.url, fixture, measured: runner.measured });
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
      await measureOidcProvider('es256');
      if (options.cpuProfileDir) {
        const profiles = readdirSync(options.cpuProfileDir).filter((f) => f.endsWith('.cpuprofile'));
        log(`  CPU profiles in ${options.cpuProfileDir}: ${profiles.join(', ') || 'none written'}`);
        log(`  summarise with: node test/bench/cpuprofile-top.mjs ${join(options.cpuProfileDir, profiles.at(-1) ?? '<file>.cpuprofile')}`);
      }
    }

    // Servers with one setting changed from the ES256/SQLite one, each running its own scenarios.
    const variants = [
      { kind: 'rs256', title: 'svc, RS256 access tokens (signing.accessTokenAlgorithm: "RS256")', store: 'sqlite:./rs256/svc.db', accessTokenAlgorithm: 'RS256' },
      { kind: 'memory', title: 'svc, memory store (as node-oidc-provider\'s default in-memory adapter)', store: 'memory' },
    ] as const;
    for (const variant of variants) {
      const chosen = scenarios.filter((s) => s.server === variant.kind && wanted(options, s.id));
      if (chosen.length === 0) continue;
      const port = await freePort();
      const configFile = fixture.writeConfig(variant.kind, { port, store: variant.store, ...('accessTokenAlgorithm' in variant ? { accessTokenAlgorithm: variant.accessTokenAlgorithm } : {}) });
      log(variant.title);
      const server = await startService({ configFile, port, cpu, nodeArgs });
      try {
        for (const scenario of chosen) rows.push(await runScenario(runner, scenario, server.url, pinnedLabel(`svc, ${variant.kind}`)));
      } finally {
        await stopServer(server, `svc (${variant.kind})`, notes);
      }
      if (variant.kind === 'rs256') await measureOidcProvider('rs256');
      if (options.cpuProfileDir) log(`  CPU profile written to ${options.cpuProfileDir}`);
    }

    if (wanted(options, 'cluster')) {
      const all = cpus().length; // not availableParallelism(): this process is pinned to one CPU
      // JWTs touch no store; reference tokens show what sharing one SQLite file between workers costs.
      for (const [id, what, name] of [['cc-es256', 'client_credentials → JWT ES256', 'es256'], ['cc-reference', 'client_credentials → reference token (SQLite)', 'reference']] as const) {
        const base = scenarios.find((s) => s.id === id)!;
        const results: Row[] = [];
        for (const [workers, count] of [[1, 1], ['auto', all]] as const) {
          const port = await freePort();
          // logLevel info: the "svc listening" line of each worker tells when all are up. A
          // successful token request logs nothing at info, so the hot path is the same.
          const configFile = fixture.writeConfig(`cluster-${name}-${workers}`, { port, store: `sqlite:./cluster-${name}-${workers}/svc.db`, workers, logLevel: 'info' });
          const title = `${what}, workers: ${workers === 'auto' ? `"auto" (${count})` : 1}`;
          log(`svc, cluster mode, workers: ${workers} (not pinned)`);
          const server = await startService({ configFile, port, workers: count });
          try {
            const row = await runScenario(runner, base, server.url, 'svc, unpinned', title);
            if (!('skipped' in row)) results.push({ ...row, id: `cluster-${name}-${workers}`, oidcProvider: undefined });
          } finally {
            await stopServer(server, `svc (workers: ${workers})`, notes);
          }
        }
        if (results.length === 2) {
          cluster.push({ title: what, workers: all, oneWorker: results[0]!, allWorkers: results[1]!, speedup: results[1]!.rps / results[0]!.rps });
        }
      }
    }

    // The floor again: a drift between start and end shows other work on the machine.
    if (floor && (rows.length > 0 || cluster.length > 0)) floorAtEnd = await measureFloor('bare Koa (floor), again at the end');
  } finally {
    rmSync(fixture.dir, { recursive: true, force: true });
  }

  // Ratios are to the mean of the floor at start and at end.
  const floorRps = floor && (floorAtEnd ? (floor.rps + floorAtEnd.rps) / 2 : floor.rps);
  const withFloor = <T extends Row | Skipped>(r: T): T =>
    'skipped' in r || floorRps === undefined ? r : { ...r, ratioToFloor: r.rps / floorRps };
  // Each of our rows with the oidc-provider row of the same requests.
  const theirs = new Map(theirRows.flatMap((r) => ('skipped' in r ? [] : [[r.id, r] as const])));
  const withTheirs = (r: Row | Skipped): Row | Skipped => {
    if ('skipped' in r || r.oidcProvider === undefined) return r;
    const scenario = scenarios.find((s) => s.id === r.id);
    const their = theirs.get(scenario?.repeats ?? r.id);
    return { ...r, oidcProvider: { ...r.oidcProvider, rps: their?.rps, p99: their?.p99 } };
  };
  if (floor && floorAtEnd && Math.abs(floorAtEnd.rps - floor.rps) / floor.rps > 0.1) {
    notes.push(
      `The floor moved from ${Math.round(floor.rps)} req/s at start to ${Math.round(floorAtEnd.rps)} at end: the machine's other load changed during the run, so compare rows with care.`,
    );
  }
  const scenarioNotes = [...rows, ...theirRows].flatMap((r) => ('skipped' in r ? [`${r.title}: skipped — ${r.skipped}.`] : r.note ? [`${r.title}: ${r.note}.`] : []));
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
      pinning,
      assertionAlg: options.assertionAlg,
    },
    floor: floor && withFloor(floor),
    floorAtEnd: floorAtEnd && withFloor(floorAtEnd),
    scenarios: rows.map((r) => withTheirs(withFloor(r))),
    oidcProvider: theirRows.map(withFloor),
    memory,
    cluster: cluster.map((c) => ({ ...c, oneWorker: withFloor(c.oneWorker), allWorkers: withFloor(c.allWorkers) })),
    notes: [
      ...notes,
      ...scenarioNotes,
      ...(cluster.length > 0 ? ['Cluster runs use logLevel "info" (to see each worker come up); the other runs use "warn".'] : []),
    ],
  };

  log();
  log(consoleTable(results));
  log();
  log('oidc-provider: node-oidc-provider v9 on the same requests in this run (test/bench/oidc-provider.mjs); × oidc-provider = our req/s over its.');
  const outDir = options.outDir ?? mkdtempSync(join(tmpdir(), 'svc-bench-results-'));
  for (const file of writeResults(outDir, results)) log(`wrote ${file}`);
  log(`done in ${Math.round((Date.now() - startedAt) / 1000)} s`);
  return 0;
}
