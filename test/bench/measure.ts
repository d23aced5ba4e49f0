/**
 * Drives one scenario with autocannon: a warm-up, then timed rounds. Every answer is counted
 * by what it was (status plus OAuth `error`, or the kind of success), so a scenario that
 * quietly fails shows up as such rather than as a fast one.
 */
import autocannon from 'autocannon';

export interface LoadSpec {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** A fixed body, or a function giving the next one (fresh assertions, rotating device codes). */
  body?: string | (() => string);
  /** Names a 2xx answer, e.g. "token" or "active"; anything else counts as "unexpected". */
  success(body: string): string;
}

export interface RoundResult {
  readonly rps: number;
  /** Milliseconds. */
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  /** Answers by kind, e.g. `{ "200 token": 41230, "400 slow_down": 12 }`, plus socket errors and timeouts. */
  readonly answers: Readonly<Record<string, number>>;
}

export interface ScenarioResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly rounds: readonly RoundResult[];
  /** Summed over the timed rounds. */
  readonly answers: Readonly<Record<string, number>>;
}

const jsonError = /"error"\s*:\s*"([^"]{1,64})"/;

function classify(spec: LoadSpec, status: number, body: string): string {
  if (status >= 200 && status < 300) return `${status} ${spec.success(body)}`;
  return `${status} ${jsonError.exec(body)?.[1] ?? 'no error code'}`;
}

/** One timed run; several specs are sent in turn on every connection (the soak's mix). */
export async function runRound(url: string, specs: LoadSpec | readonly LoadSpec[], seconds: number, connections: number): Promise<RoundResult> {
  const answers: Record<string, number> = {};
  const requests = (Array.isArray(specs) ? specs : [specs]).map((spec: LoadSpec): autocannon.Request => {
    const next = spec.body;
    return {
      method: spec.method,
      path: spec.path,
      headers: spec.headers,
      ...(typeof next === 'string' ? { body: next } : {}),
      ...(typeof next === 'function' ? { setupRequest: (req: autocannon.Request) => ({ ...req, body: next() }) } : {}),
      onResponse: (status, body) => {
        const kind = classify(spec, status, body);
        answers[kind] = (answers[kind] ?? 0) + 1;
      },
    };
  });
  const result = await autocannon({ url, connections, duration: seconds, timeout: 10, requests });
  if (result.errors > 0) answers['socket errors'] = result.errors;
  if (result.timeouts > 0) answers.timeouts = result.timeouts;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    answers,
  };
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export interface MeasureOptions {
  warmupSeconds: number;
  seconds: number;
  rounds: number;
  connections: number;
  /** Runs before the warm-up and each round with the number of requests it may send (fresh assertions). */
  beforeRound?: ((expectedRequests: number) => Promise<void> | void) | undefined;
  /** A guess at the rate, sizing what `beforeRound` prepares for the warm-up. Default 8000. */
  expectedRate?: number | undefined;
  log?: (line: string) => void;
}

export async function measure(url: string, spec: LoadSpec, options: MeasureOptions): Promise<ScenarioResult> {
  const { warmupSeconds, seconds, rounds, connections, beforeRound, log = () => {} } = options;
  let rate = options.expectedRate ?? 8000;
  if (warmupSeconds > 0) {
    await beforeRound?.(Math.ceil(rate * 1.5 * warmupSeconds) + 500);
    const warm = await runRound(url, spec, warmupSeconds, connections);
    // A cold warm-up underestimates; the caller's guess is kept when it is higher.
    rate = Math.max(warm.rps, options.expectedRate ?? 100);
    log(`    warm-up  ${format(warm)}`);
  }
  const results: RoundResult[] = [];
  for (let i = 0; i < rounds; i++) {
    // Room for a round 40% faster than the fastest seen so far.
    await beforeRound?.(Math.ceil(rate * 1.4 * seconds) + 1000);
    const round = await runRound(url, spec, seconds, connections);
    rate = Math.max(rate, round.rps);
    results.push(round);
    log(`    round ${i + 1}  ${format(round)}`);
  }
  const answers: Record<string, number> = {};
  for (const r of results) for (const [k, n] of Object.entries(r.answers)) answers[k] = (answers[k] ?? 0) + n;
  return {
    rps: median(results.map((r) => r.rps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    rounds: results,
    answers,
  };
}

export function format(r: RoundResult): string {
  const answers = Object.entries(r.answers).map(([k, n]) => `${k}: ${n}`).join(', ');
  return `${Math.round(r.rps)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  [${answers}]`;
}
