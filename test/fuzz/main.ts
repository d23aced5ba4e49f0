/**
 * `npm run fuzz`: starts the service on SQLite in a temp folder, sends mutated versions of valid
 * requests to every endpoint and page (and raw TCP bytes) for FUZZ_SECONDS, and fails on any 5xx
 * other than 503, a crash, a hang, or an answer or log line that leaks a stack, a path, SQL or a
 * secret. The surfaces share the time by weight (`surfaceWeights`); the report counts the cases
 * and requests of each. FUZZ_SEED reproduces a run (fast-check's seed; FUZZ_PATH jumps to one
 * failing case).
 */
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { freePort } from '../support/free-port.js';
import { createFuzzFixture, repoRoot } from './fixture.js';
import { caseArb, type Mutation } from './mutate.js';
import { judge } from './oracle.js';
import { rawCaseArb, sendRaw, slowSender, type RawCase } from './raw.js';
import { redact } from './redact.js';
import { closeAgent, send, type FuzzRequest, type FuzzResponse } from './request.js';
import { createSeeds } from './seeds.js';
import { surfaceWeights, type Surface } from './seed-kit.js';
import { startService } from './service.js';
import { SetupRefused, type Probe } from './visitor.js';

/** An answer slower than this is a hang: nothing the fuzzer sends should take the service this long. */
const hangMs = 10_000;

/** A bad answer; `fatal` when the run cannot go on after it (the service died or hung). */
class Finding extends Error {
  constructor(message: string, readonly fatal = false) {
    super(message);
  }
}

/** Distinct findings a run collects before it stops: a few are enough to act on. */
const maxFindings = 10;

function describeRequest(req: FuzzRequest, secrets: readonly string[]): string {
  const body = req.body === undefined ? '' : req.body.length > 2_000 ? `${req.body.subarray(0, 2_000).toString('latin1')}... (${req.body.length} bytes)` : req.body.toString('latin1');
  const headers = req.headers.map(([n, v]) => `${n}: ${v.length > 300 ? `${v.slice(0, 300)}... (${v.length})` : v}`).join('\n');
  return redact(`${req.method} ${req.path.length > 500 ? `${req.path.slice(0, 500)}...` : req.path}\n${headers}\n\n${body}`, secrets);
}

export async function runFuzz(): Promise<number> {
  const seconds = Number(process.env.FUZZ_SECONDS ?? 60);
  const seed = process.env.FUZZ_SEED === undefined ? Date.now() ^ (Math.random() * 0x7fffffff) : Number(process.env.FUZZ_SEED);
  const path = process.env.FUZZ_PATH;
  if (!Number.isFinite(seconds) || seconds <= 0 || !Number.isInteger(seed)) {
    console.error('FUZZ_SECONDS must be a positive number and FUZZ_SEED an integer');
    return 2;
  }
  console.log(`fuzz: seed ${seed} (reproduce with FUZZ_SEED=${seed}), ${seconds} s`);

  const fixture = await createFuzzFixture(await freePort());
  const service = await startService(fixture.configFile, fixture.secrets);
  const paths = [repoRoot.replace(/\/$/, ''), fixture.dir];
  const failures: string[] = [];
  const counts = { http: 0, raw: 0, byStatus: new Map<number, number>() };
  const bySurface = new Map<Surface, { cases: number; requests: number; refused: number; byStatus: Map<number, number> }>(
    Object.keys(surfaceWeights).map((name) => [name as Surface, { cases: 0, requests: 0, refused: 0, byStatus: new Map() }]),
  );
  const rssAtStart = await rssOf(service.proc.pid);

  try {
    const { seeds, signers } = await createSeeds(fixture);
    const slow = [slowSender(fixture.port, false, 65_000), slowSender(fixture.port, true, 65_000)];

    const alive = (): void => {
      const exit = service.exit();
      if (exit) throw new Finding(`the service died (${exit.code ?? exit.signal})\n${redact(service.tail(), fixture.secrets)}`, true);
    };

    const judged = (req: FuzzRequest, res: FuzzResponse, surface: Surface, where: () => string): void => {
      counts.byStatus.set(res.status, (counts.byStatus.get(res.status) ?? 0) + 1);
      const tally = bySurface.get(surface)!;
      tally.requests++;
      tally.byStatus.set(res.status, (tally.byStatus.get(res.status) ?? 0) + 1);
      const sent = `${req.method} ${req.path}\n${req.headers.flat().join('\n')}\n${req.body?.toString('latin1') ?? ''}`;
      const problem = judge(res, { method: req.method, sent, secrets: fixture.secrets, paths });
      if (problem) throw new Finding(`${problem}\n${where()}\n--- answer ---\n${res.status} ${redact(res.body.slice(0, 1_000), fixture.secrets)}`);
    };
    /** What a case sends before its mutated request: judged like it, but its failure to get an answer is a refused setup. */
    let current: { name: string; surface: Surface; steps: string[] } = { name: 'setup', surface: 'metadata, operations', steps: [] };
    const probe: Probe = async (req) => {
      const res = await send(fixture.port, req, hangMs);
      counts.http++;
      current.steps.push(`${req.method} ${req.path.slice(0, 200)} -> ${'status' in res ? res.status : res.failure}`);
      if (!('status' in res)) {
        alive();
        if (res.failure === 'timeout') throw new Finding(`a hang on a setup step of ${current.name}: ${res.detail}\n${describeRequest(req, fixture.secrets)}`, true);
        throw new SetupRefused(`${req.method} ${req.path.slice(0, 100)}: ${res.failure}`);
      }
      judged(req, res, current.surface, () => `${current.name}, on the way (an unmutated step)\n--- steps ---\n${current.steps.join('\n')}\n--- request (secrets redacted) ---\n${describeRequest(req, fixture.secrets)}`);
      return res;
    };

    const httpCase = async (c: { seed: number; mutations: Mutation[] }): Promise<void> => {
      const seedOf = seeds[c.seed]!;
      current = { name: seedOf.name, surface: seedOf.surface, steps: [] };
      const tally = bySurface.get(seedOf.surface)!;
      tally.cases++;
      let req: FuzzRequest;
      try {
        req = await seedOf.build(probe);
      } catch (err) {
        if (!(err instanceof SetupRefused)) throw err;
        tally.refused++;
        if (process.env.FUZZ_VERBOSE) console.log(`setup refused: ${seedOf.name}: ${err.message}`);
        return;
      }
      for (const m of c.mutations) req = await m.apply(req, signers);
      const res = await send(fixture.port, req, hangMs);
      counts.http++;
      if (process.env.FUZZ_VERBOSE) console.log(`${res.ms} ms ${'status' in res ? res.status : res.failure} ${seedOf.name} ${c.mutations.map((m) => m.describe).join(' + ').slice(0, 200)}`);
      const steps = current.steps.length ? `\n--- unmutated steps before it ---\n${current.steps.join('\n')}` : '';
      const where = () => `${seedOf.name}${c.mutations.map((m) => `\n  + ${m.describe}`).join('')}${steps}\n--- request (secrets redacted) ---\n${describeRequest(req, fixture.secrets)}`;
      if (!('status' in res)) {
        alive();
        if (res.failure === 'not sendable') return;
        // The service may close on a request it refuses (too large); a timeout is a hang.
        if (res.failure === 'timeout') throw new Finding(`a hang: ${res.detail}\n${where()}`, true);
        return;
      }
      judged(req, res, seedOf.surface, where);
    };

    const rawCase = async (c: RawCase): Promise<void> => {
      const out = await sendRaw(fixture.port, c.bytes, hangMs, c.answers);
      counts.raw++;
      alive();
      const show = () => `${c.describe}\n--- first bytes ---\n${JSON.stringify(c.bytes.subarray(0, 300).toString('latin1'))}\n--- answer ---\n${JSON.stringify(out.text.slice(0, 600))}`;
      if (out.timedOut) throw new Finding(`a hang: the connection stayed open ${hangMs} ms after the request was complete\n${show()}`, true);
      const bad = out.statuses.find((s) => s >= 500 && s !== 503 && s !== 501);
      if (bad !== undefined) throw new Finding(`status ${bad} on raw bytes\n${show()}`);
      if (/\n\s+at [^\n]+:\d+:\d+|node_modules|SQLITE_/.test(out.text) || paths.some((p) => out.text.includes(p))) throw new Finding(`a leak in a raw answer\n${show()}`);
      // Every request of a pipeline is answered, in order, unless one of them closes the connection.
      if (c.answers !== undefined && out.statuses.length !== c.answers && !/connection: close/i.test(out.text)) {
        throw new Finding(`${out.statuses.length} answers to a pipeline of ${c.answers}\n${show()}`);
      }
    };

    // A surface first, by its weight, then one of its seeds.
    const seedArb = fc.oneof(...(Object.entries(surfaceWeights) as Array<[Surface, number]>).map(([surface, weight]) => {
      const indices = seeds.flatMap((sd, i) => (sd.surface === surface ? [i] : []));
      if (indices.length === 0) throw new Error(`no seed for the surface ${surface}`);
      return { weight, arbitrary: fc.constantFrom(...indices) };
    }));
    // fast-check's path of a case is its index in the run (nothing is shrunk): FUZZ_PATH replays it.
    let run = path === undefined ? -1 : Number(path.split(':')[0]) - 1;
    const found = new Map<string, { message: string; path: string; times: number }>();
    const property = fc.asyncProperty(
      fc.oneof({ weight: 9, arbitrary: caseArb(seedArb).map((c) => ({ http: c })) }, { weight: 1, arbitrary: rawCaseArb.map((r) => ({ raw: r })) }),
      async (c) => {
        run++;
        try {
          if ('http' in c) await httpCase(c.http);
          else await rawCase(c.raw);
        } catch (err) {
          if (!(err instanceof Finding) || err.fatal) throw err;
          // The run goes on: one minute finds every distinct bug it can, not only the first.
          // The same problem of the same seed again is counted, not repeated.
          const key = err.message.split('\n').slice(0, 2).join('\n');
          const seen = found.get(key);
          if (seen) seen.times++;
          else found.set(key, { message: err.message, path: String(run), times: 1 });
          if (found.size >= maxFindings) throw new Finding(`stopped after ${maxFindings} distinct findings`, true);
        }
      },
    );
    const result = await fc.check(property, {
      seed,
      ...(path ? { path } : {}),
      numRuns: path ? 1 : Number.MAX_SAFE_INTEGER,
      interruptAfterTimeLimit: seconds * 1000,
      markInterruptAsFailure: false,
      endOnFailure: true,
    });
    for (const f of found.values()) {
      failures.push(`${f.message}\n(${f.times === 1 ? 'once' : `${f.times} times`}; the first: FUZZ_SEED=${seed} FUZZ_PATH=${f.path})`);
    }
    if (result.failed) {
      const error = result.errorInstance;
      const what = error instanceof Finding ? error.message : `the fuzzer itself failed: ${error instanceof Error ? error.stack : String(error)}`;
      failures.push(`${what}\n(reproduce: FUZZ_SEED=${seed} FUZZ_PATH=${result.counterexamplePath})`);
    }

    for (const problem of await Promise.all(slow)) if (problem) failures.push(problem);
    const health = await send(fixture.port, { seed: 'final health check', method: 'GET', path: '/healthz', headers: [] }, hangMs);
    if (!('status' in health) || health.status !== 200) failures.push(`the service is not healthy after the run: ${JSON.stringify(health).slice(0, 300)}`);
  } catch (err) {
    failures.push(err instanceof Finding ? err.message : `the fuzzer itself failed: ${(err as Error).stack ?? String(err)}`);
  } finally {
    closeAgent();
    const rssAtEnd = await rssOf(service.proc.pid);
    await service.stop();
    const exit = service.exit();
    if (exit && exit.code !== 0 && exit.signal !== 'SIGTERM') failures.push(`the service exited with ${exit.code ?? exit.signal} on SIGTERM`);
    failures.push(...service.findings());
    const statuses = [...counts.byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
    console.log(`fuzz: ${counts.http} HTTP requests (${statuses}), ${counts.raw} raw TCP cases; server RSS ${rssAtStart} → ${rssAtEnd} MiB`);
    console.log(surfaceReport(bySurface));
    // A surface whose cases never got past their setup was not fuzzed at all: the fixture or a seed is wrong.
    for (const [surface, t] of bySurface) {
      if (t.cases >= 10 && t.refused === t.cases) failures.push(`the surface "${surface}" was not reached: all ${t.cases} of its cases were refused on the way (FUZZ_VERBOSE=1 says why)`);
    }
    rmSync(fixture.dir, { recursive: true, force: true });
  }

  if (failures.length === 0) {
    console.log('fuzz: no finding');
    return 0;
  }
  console.error(`fuzz: ${failures.length} finding(s) with seed ${seed}:\n\n${failures.map((f) => redact(f, fixture.secrets)).join('\n\n')}`);
  return 1;
}

function surfaceReport(bySurface: ReadonlyMap<Surface, { cases: number; requests: number; refused: number; byStatus: ReadonlyMap<number, number> }>): string {
  const width = Math.max(...[...bySurface.keys()].map((k) => k.length));
  const lines = [...bySurface].map(([surface, t]) => {
    const statuses = [...t.byStatus].sort(([a], [b]) => a - b).map(([st, n]) => `${st}×${n}`).join(' ');
    return `  ${surface.padEnd(width)} ${String(t.cases).padStart(6)} cases ${String(t.requests).padStart(6)} requests${t.refused ? ` (${t.refused} setups refused)` : ''}  ${statuses}`;
  });
  return `fuzz: per surface (requests include each case's unmutated steps)\n${lines.join('\n')}`;
}

async function rssOf(pid: number | undefined): Promise<string> {
  try {
    const { readFile } = await import('node:fs/promises');
    const kb = /VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? '?' : (Number(kb) / 1024).toFixed(0);
  } catch {
    return '?';
  }
}
