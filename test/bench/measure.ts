/**
 * Drives one scenario with autocannon: a warm-up, then timed rounds. Every answer is counted
 * by what it was (status plus OAuth `error`, or the kind of success), so a scenario that
 * quietly fails shows up as such rather than as a fast one. Several servers can be measured
 * in alternating rounds, so that each round of one has a neighbour of the other taken at about
 * the same machine speed.
 */
import autocannon from 'autocannon';
import { cpuSeconds } from './cpu-time.js';

export interface LoadSpec {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** A fixed body, or a function giving the next one (fresh assertions, rotating device codes). */
  body?: string | (() => string);
  /** Headers that change with every request (a fresh DPoP proof), on top of `headers`. */
  freshHeaders?: () => Record<string, string>;
  /** Names a 2xx answer, e.g. "token" or "active"; anything else counts as "unexpected". */
  success(body: string): string;
  /** Sees every answer (a rotated refresh token goes back into the pool). */
  onAnswer?(status: number, body: string): void;
  /**
   * A request made of what the connection's previous answer said (the sign-in form's fields and
   * cookie after the page was fetched): autocannon keeps one `context` per connection.
   */
  fromContext?(context: Record<string, unknown>): { body?: string; headers?: Record<string, string> };
  /** Keeps what the next request of the connection needs (`fromContext`), from the answer and its headers. */
  intoContext?(context: Record<string, unknown>, status: number, body: string, headers: Record<string, string>): void;
}

export interface RoundResult {
  readonly rps: number;
  /** Milliseconds. */
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  /** Answers by kind, e.g. `{ "200 token": 41230, "400 slow_down": 12 }`, plus socket errors and timeouts. */
  readonly answers: Readonly<Record<string, number>>;
  /** Server CPU time (user + system) over the requests answered, in µs; set when the server's pid was given. */
  readonly cpuMicrosPerRequest?: number | undefined;
}

export interface ScenarioResult {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly rounds: readonly RoundResult[];
  /** Summed over the timed rounds. */
  readonly answers: Readonly<Record<string, number>>;
  /** Median over the rounds; undefined without a pid or a readable /proc. */
  readonly cpuMicrosPerRequest: number | undefined;
}

const jsonError = /"error"\s*:\s*"([^"]{1,64})"/;

function classify(spec: LoadSpec, status: number, body: string): string {
  if (status >= 200 && status < 300) return `${status} ${spec.success(body)}`;
  if (status >= 300 && status < 400) return `${status} redirect`;
  return `${status} ${jsonError.exec(body)?.[1] ?? 'no error code'}`;
}

/** One timed run; several specs are sent in turn on every connection (the soak's mix). */
export async function runRound(url: string, specs: LoadSpec | readonly LoadSpec[], seconds: number, connections: number): Promise<RoundResult> {
  const answers: Record<string, number> = {};
  const requests = (Array.isArray(specs) ? specs : [specs]).map((spec: LoadSpec): autocannon.Request => {
    const next = spec.body;
    const fresh = spec.freshHeaders;
    const perRequest = typeof next === 'function' || fresh !== undefined || spec.fromContext !== undefined;
    return {
      method: spec.method,
      path: spec.path,
      headers: spec.headers,
      ...(typeof next === 'string' ? { body: next } : {}),
      ...(perRequest
        ? {
          setupRequest: (req: autocannon.Request, context: Record<string, unknown>) => {
            const made = spec.fromContext?.(context);
            return {
              ...req,
              ...(typeof next === 'function' ? { body: next() } : {}),
              ...(fresh ? { headers: { ...spec.headers, ...fresh() } } : {}),
              ...(made?.body === undefined ? {} : { body: made.body }),
              ...(made?.headers === undefined ? {} : { headers: { ...spec.headers, ...made.headers } }),
            };
          },
        }
        : {}),
      onResponse: (status, body, context, headers) => {
        spec.onAnswer?.(status, body);
        spec.intoContext?.(context, status, body, headers);
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

export interface RoundOptions {
  warmupSeconds: number;
  seconds: number;
  rounds: number;
  connections: number;
  log?: (line: string) => void;
}

/** One server and the requests to send it. */
export interface Target {
  readonly url: string;
  /** One request, or several sent in turn on every connection (a login: the page, then the form). */
  readonly spec: LoadSpec | readonly LoadSpec[];
  /** Runs before the warm-up and each round with the number of requests it may send (fresh assertions) and the rate expected. */
  readonly beforeRound?: ((expectedRequests: number, expectedRate: number) => Promise<void> | void) | undefined;
  /** A guess at the rate, sizing what `beforeRound` prepares for the warm-up. Default 8000. */
  readonly expectedRate?: number | undefined;
  /** The server's process: its CPU time is read before and after each round. */
  readonly pid?: number | undefined;
  /** Tells the targets apart in the log when there are several. */
  readonly name?: string | undefined;
}

/**
 * Requests per second that were answered with a success (2xx, 3xx): what sizes the next pool. A
 * pool that ran out is answered by quick refusals, which must not make the next one bigger: a
 * FAPI round sized so had its first codes expire before the round began.
 */
function succeededRate(result: RoundResult): number {
  let all = 0;
  let succeeded = 0;
  for (const [kind, count] of Object.entries(result.answers)) {
    all += count;
    if (/^[23]\d\d /.test(kind)) succeeded += count;
  }
  return all === 0 ? result.rps : result.rps * (succeeded / all);
}

/**
 * Warms up each target, then runs round after round with every target once per round: in the
 * given order in even rounds, reversed in odd ones, so that neither always follows the other.
 * One result per target, in the order given; round i of each was taken in the same stretch of time.
 */
export async function measureInterleaved(targets: readonly Target[], options: RoundOptions): Promise<ScenarioResult[]> {
  const { warmupSeconds, seconds, rounds, connections, log = () => {} } = options;
  const width = Math.max(0, ...targets.map((t) => t.name?.length ?? 0));
  const named = (target: Target): string => (targets.length > 1 && target.name ? `${target.name.padEnd(width)}  ` : '');
  const rates = targets.map((t) => t.expectedRate ?? 8000);
  if (warmupSeconds > 0) {
    for (const [i, target] of targets.entries()) {
      await target.beforeRound?.(Math.ceil(rates[i]! * 1.5 * warmupSeconds) + 500, rates[i]!);
      const warm = await runRound(target.url, target.spec, warmupSeconds, connections);
      // A cold warm-up underestimates; the caller's guess is kept when it is higher.
      rates[i] = Math.max(succeededRate(warm), target.expectedRate ?? 100);
      log(`    ${named(target)}warm-up  ${format(warm)}`);
    }
  }
  const results: RoundResult[][] = targets.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = [...targets.keys()];
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const target = targets[i]!;
      // Room for a round 40% faster than the fastest seen so far.
      await target.beforeRound?.(Math.ceil(rates[i]! * 1.4 * seconds) + 1000, rates[i]!);
      const result = await timedRound(target, seconds, connections);
      rates[i] = Math.max(rates[i]!, succeededRate(result));
      results[i]!.push(result);
      log(`    ${named(target)}round ${round + 1}  ${format(result)}`);
    }
  }
  return results.map(summarise);
}

/** A round with the server's CPU time per request, read around it (the other servers idle meanwhile). */
async function timedRound(target: Target, seconds: number, connections: number): Promise<RoundResult> {
  const before = target.pid === undefined ? undefined : cpuSeconds(target.pid);
  const round = await runRound(target.url, target.spec, seconds, connections);
  const after = target.pid === undefined ? undefined : cpuSeconds(target.pid);
  if (before === undefined || after === undefined || round.requests === 0) return round;
  return { ...round, cpuMicrosPerRequest: ((after - before) * 1e6) / round.requests };
}

function summarise(rounds: readonly RoundResult[]): ScenarioResult {
  const answers: Record<string, number> = {};
  for (const r of rounds) for (const [k, n] of Object.entries(r.answers)) answers[k] = (answers[k] ?? 0) + n;
  const cpu = rounds.map((r) => r.cpuMicrosPerRequest);
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    rounds,
    answers,
    cpuMicrosPerRequest: cpu.length > 0 && cpu.every((c): c is number => c !== undefined) ? median(cpu) : undefined,
  };
}

export function format(r: RoundResult): string {
  const answers = Object.entries(r.answers).map(([k, n]) => `${k}: ${n}`).join(', ');
  const cpu = r.cpuMicrosPerRequest === undefined ? '' : `  CPU ${Math.round(r.cpuMicrosPerRequest)} µs/request`;
  return `${Math.round(r.rps)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms${cpu}  [${answers}]`;
}
