/**
 * One scenario on our server, alone or with node-oidc-provider beside it, and for a durable row
 * with its store floor beside it too (issue 40). Each server prepares its own requests (its own
 * pool of unique assertions: oidc-provider remembers every jti it has seen); then they are
 * measured in alternating rounds, so that each of our rounds has one of theirs taken at about
 * the same machine speed, and a ratio is the median of those pairs.
 */
import type { BenchFixture } from './fixture.js';
import { median, measureInterleaved, type ScenarioResult } from './measure.js';
import type { BenchOptions } from './options.js';
import { answerMix, type Row, type Skipped } from './report.js';
import { scenarios, type Prepared, type Scenario, type ScenarioContext } from './scenarios.js';

export interface Bench {
  readonly options: BenchOptions;
  readonly fixture: BenchFixture;
  readonly log: (line?: string) => void;
}

/** A running server as the scenarios see it. */
export interface Side {
  readonly url: string;
  /** Its process, for CPU time per request; undefined for a cluster (several processes). */
  readonly pid: number | undefined;
  /** Where it runs, e.g. "svc, CPU 0"; also names it in the log. */
  readonly label: string;
  /** Median req/s measured on this kind of server so far, by scenario id (sizes assertion pools and device codes). */
  readonly measured: Map<string, number>;
}

/** A store floor server and the store floor scenario that stands beside a durable row. */
export interface StoreFloorBeside {
  readonly scenario: Scenario;
  readonly side: Side;
}

export interface ScenarioRows {
  readonly ours: Row | Skipped;
  /** node-oidc-provider's row, when it was beside us. */
  readonly theirs: Row | Skipped | undefined;
  /** The store floor's row, when it was beside us. */
  readonly storeFloor: Row | Skipped | undefined;
}

interface Run {
  /** The scenario's id, or the store floor's. */
  readonly id: string;
  readonly side: Side;
  readonly title: string;
  readonly prepared: Prepared | { readonly skipped: string };
}

interface Measured {
  readonly result: ScenarioResult;
  readonly note: string | undefined;
}

const isPrepared = (run: Run): run is Run & { readonly prepared: Prepared } => !('skipped' in run.prepared);

/** Median over rounds of our req/s over theirs in the same round. */
const pairedRatio = (ours: ScenarioResult, theirs: ScenarioResult): number =>
  median(ours.rounds.map((round, i) => round.rps / theirs.rounds[i]!.rps));

/** A repeat (a memory-store row) runs the requests of the scenario it repeats on oidc-provider again. */
function theirTitle(scenario: Scenario): string {
  const repeated = scenarios.find((s) => s.id === scenario.repeats);
  const title = `node-oidc-provider: ${(repeated ?? scenario).title.replace(' (SQLite)', '')}`;
  return repeated ? `${title} (paired with svc, ${scenario.server})` : title;
}

async function prepareOn(scenario: Scenario, side: Side, implementation: ScenarioContext['implementation'], fixture: BenchFixture): Promise<Prepared | { skipped: string }> {
  try {
    return await scenario.prepare({ url: side.url, implementation, fixture, measured: side.measured });
  } catch (err) {
    return { skipped: `preparation failed: ${(err as Error).message}` };
  }
}

export async function runScenario(bench: Bench, scenario: Scenario, ours: Side, theirs?: Side, title = scenario.title, storeFloor?: StoreFloorBeside): Promise<ScenarioRows> {
  const { options, fixture, log } = bench;
  const beside = [...(theirs ? ['node-oidc-provider'] : []), ...(storeFloor ? ['its store floor'] : [])];
  log(`  ${title}${beside.length ? `, with ${beside.join(' and ')} in alternating rounds` : ''}`);
  const runs: Run[] = [{ id: scenario.id, side: ours, title, prepared: await prepareOn(scenario, ours, 'svc', fixture) }];
  if (theirs) runs.push({ id: scenario.id, side: theirs, title: theirTitle(scenario), prepared: await prepareOn(scenario, theirs, 'oidc-provider', fixture) });
  if (storeFloor) {
    const { scenario: floor, side } = storeFloor;
    runs.push({ id: floor.id, side, title: `${floor.title} (beside "${title}")`, prepared: await prepareOn(floor, side, 'svc', fixture) });
  }
  const labelled = runs.length > 1;
  for (const { side, prepared } of runs) if ('skipped' in prepared) log(`    ${labelled ? `${side.label}: ` : ''}skipped: ${prepared.skipped}`);

  const ready = runs.filter(isPrepared);
  const results = await measureInterleaved(
    ready.map(({ side, prepared }) => ({ url: side.url, spec: prepared.spec, beforeRound: prepared.beforeRound, expectedRate: prepared.expectedRate, pid: side.pid, name: side.label })),
    { warmupSeconds: options.warmupSeconds, seconds: options.seconds, rounds: options.rounds, connections: ready.find(({ prepared }) => prepared.connections !== undefined)?.prepared.connections ?? options.connections, log },
  );
  const measured = new Map<Side, Measured>();
  for (const [i, { id, side, prepared }] of ready.entries()) {
    const result = results[i]!;
    side.measured.set(id, result.rps);
    const note = prepared.note?.(); // after the set: a note may quote the rate just measured
    measured.set(side, { result, note });
    const cpu = result.cpuMicrosPerRequest === undefined ? '' : `, CPU ${Math.round(result.cpuMicrosPerRequest)} µs/request`;
    log(`    ${labelled ? `${side.label}: ` : ''}median ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms${cpu}; answers: ${answerMix(result.answers)}`);
    if (note) log(`    ${note}`);
  }

  const ourResult = measured.get(ours)?.result;
  const theirResult = theirs && measured.get(theirs)?.result;
  const ratio = ourResult && theirResult && pairedRatio(ourResult, theirResult);
  if (ratio !== undefined) {
    const perRound = ourResult!.rounds.map((round, i) => (round.rps / theirResult!.rounds[i]!.rps).toFixed(2));
    log(`    × oidc-provider ${ratio.toFixed(2)} (median of the rounds' ${perRound.join(', ')})`);
  }
  const row = (run: Run, oidcProvider: Row['oidcProvider']): Row | Skipped => {
    if ('skipped' in run.prepared) return { id: run.id, title: run.title, skipped: run.prepared.skipped };
    const { result, note } = measured.get(run.side)!; // every prepared run was measured
    return { id: run.id, title: run.title, server: run.side.label, ...result, ratioToFloor: undefined, oidcProvider, note };
  };
  const floorRun = storeFloor && runs.find((r) => r.side === storeFloor.side);
  const paired = scenario.oidcProvider !== undefined;
  const quoted = scenario.oidcProvider?.quoted;
  const theirFigures = { rps: theirResult?.rps, p99: theirResult?.p99, cpuMicrosPerRequest: theirResult?.cpuMicrosPerRequest, pairedRatio: ratio };
  return {
    ours: row(runs[0]!, paired ? { ...theirFigures, quoted } : undefined),
    // Their own row keeps only issue 7's figure, which results.md shows beside it.
    theirs: theirs && row(runs[1]!, paired ? { rps: undefined, p99: undefined, cpuMicrosPerRequest: undefined, pairedRatio: undefined, quoted } : undefined),
    storeFloor: floorRun && { ...row(floorRun, undefined), pairedWith: scenario.id },
  };
}
