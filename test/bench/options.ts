/**
 * Benchmark settings, from the environment. Defaults keep `npm run bench` under about six
 * minutes on two cores.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface BenchOptions {
  /** Length of one timed round in seconds (`BENCH_SECONDS`). */
  readonly seconds: number;
  /** Timed rounds per scenario; the median is reported (`BENCH_ROUNDS`). */
  readonly rounds: number;
  /** Untimed load before the rounds (`BENCH_WARMUP_SECONDS`). */
  readonly warmupSeconds: number;
  /** Length of the memory soak (`BENCH_SOAK_SECONDS`; 0 skips it). */
  readonly soakSeconds: number;
  /**
   * The store soak (`BENCH_ONLY=soak-store` only, test/bench/store-soak.ts): its length
   * (`BENCH_STORE_SOAK_SECONDS`, default 300), how often it samples the table
   * (`BENCH_STORE_SOAK_SAMPLE_SECONDS`, 15), the records' lifetime (`BENCH_STORE_SOAK_LIFETIME`,
   * 60) and `cleanupInterval` (`BENCH_STORE_SOAK_CLEANUP`, 10), in seconds.
   */
  readonly storeSoak: { readonly seconds: number; readonly sampleSeconds: number; readonly lifetimeSeconds: number; readonly cleanupInterval: number };
  /** Concurrent keep-alive connections (`BENCH_CONNECTIONS`). */
  readonly connections: number;
  /** Only these scenario ids, plus `soak` and `cluster` (`BENCH_ONLY`, comma-separated). */
  readonly only: ReadonlySet<string> | undefined;
  /** Start the single-core service with `node --cpu-prof` and write the profile here (`BENCH_CPU_PROF`). */
  readonly cpuProfileDir: string | undefined;
  /** Algorithm of the private_key_jwt assertions (`BENCH_PKJ_ALG`): RS256, as oidc-provider's figure, or ES256. */
  readonly assertionAlg: 'RS256' | 'ES256';
  /** Pin a local PostgreSQL to the load generator's CPU while pinned servers run (`BENCH_PIN_POSTGRES`, default 1; 0 leaves it free). */
  readonly pinPostgres: boolean;
  /** Where results are written (`BENCH_OUT`); a partial run (`BENCH_ONLY`, `BENCH_CPU_PROF`) defaults to a temp folder. */
  readonly outDir: string | undefined;
}

function positive(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name}: expected a number ≥ ${min}, found "${raw}"`);
  return value;
}

export function readOptions(): BenchOptions {
  const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim()).filter(Boolean)) : undefined;
  const cpuProfileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
  const assertionAlg = process.env.BENCH_PKJ_ALG ?? 'RS256';
  if (assertionAlg !== 'RS256' && assertionAlg !== 'ES256') throw new Error(`BENCH_PKJ_ALG: expected RS256 or ES256, found "${assertionAlg}"`);
  const pinPostgres = process.env.BENCH_PIN_POSTGRES ?? '1';
  if (pinPostgres !== '0' && pinPostgres !== '1') throw new Error(`BENCH_PIN_POSTGRES: expected 0 or 1, found "${pinPostgres}"`);
  const partial = only !== undefined || cpuProfileDir !== undefined;
  return {
    seconds: positive('BENCH_SECONDS', 6),
    rounds: Math.round(positive('BENCH_ROUNDS', 3)),
    warmupSeconds: positive('BENCH_WARMUP_SECONDS', 3, 0),
    soakSeconds: positive('BENCH_SOAK_SECONDS', 60, 0),
    storeSoak: {
      seconds: positive('BENCH_STORE_SOAK_SECONDS', 300),
      sampleSeconds: positive('BENCH_STORE_SOAK_SAMPLE_SECONDS', 15),
      lifetimeSeconds: Math.round(positive('BENCH_STORE_SOAK_LIFETIME', 60)),
      cleanupInterval: Math.round(positive('BENCH_STORE_SOAK_CLEANUP', 10)),
    },
    connections: Math.round(positive('BENCH_CONNECTIONS', 64)),
    only,
    cpuProfileDir,
    assertionAlg,
    pinPostgres: pinPostgres === '1',
    outDir: process.env.BENCH_OUT ? resolve(process.env.BENCH_OUT) : partial ? undefined : resolve(repoRoot, 'docs/bench'),
  };
}

export function wanted(options: BenchOptions, id: string): boolean {
  return options.only === undefined || options.only.has(id);
}

/** Runs only when `BENCH_ONLY` names it: the store soak takes minutes on its own. */
export function named(options: BenchOptions, id: string): boolean {
  return options.only?.has(id) ?? false;
}
