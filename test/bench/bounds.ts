/**
 * What a row cannot do without, in CPU µs per request, computed within one run. The signature
 * bound is the floor (bare Koa) plus the signatures the row makes and checks; the store bound
 * (issue 40) adds what the row's store calls cost on top of the floor, as its store floor row
 * measured them (bare Koa plus exactly those calls, test/bench/store-floor.ts):
 *
 *   bound = signature bound + (store floor − floor) = store floor + signatures
 *
 * so "ours ÷ bound" is how much of a row's cost is the service's own work.
 */
import type { BenchResults, Row, Skipped } from './report.js';

type Signatures = NonNullable<BenchResults['signatureMicros']>;
/** A named part of a bound and its CPU µs (undefined when it was not measured). */
export type BoundPart = readonly [string, number | undefined];

/** The signatures each signing row makes and checks, by row id: the access token's, an ID token's, a proof's check. */
export function signatureParts(sig: Signatures): ReadonlyArray<readonly [string, readonly BoundPart[]]> {
  const check = sig.verify?.ES256;
  return [
    ['cc-es256', [['ES256 signature', sig.ES256]]],
    ['cc-rs256', [['RS256 signature', sig.RS256]]],
    ['delegation', [['ES256 check of the user\'s token', check], ['ES256 signature', sig.ES256]]],
    ['cc-dpop', [['ES256 check of the proof', check], ['ES256 signature', sig.ES256]]],
    ['code', [['ES256 signature', sig.ES256], ['RS256 ID token signature', sig.RS256]]],
    ['refresh', [['ES256 signature', sig.ES256], ['RS256 ID token signature', sig.RS256]]],
    ['code-es256-id-token', [['ES256 signature', sig.ES256], ['ES256 ID token signature', sig.ES256]]],
    ['refresh-es256-id-token', [['ES256 signature', sig.ES256], ['ES256 ID token signature', sig.ES256]]],
  ];
}

/** Each durable row (SQLite id) and the store floor row that makes its store calls; on PostgreSQL both ids end in `-pg`. */
export const storeFloorOf: ReadonlyArray<readonly [string, string]> = [
  ['code', 'floor-code'],
  ['code-es256-id-token', 'floor-code'],
  ['refresh', 'floor-refresh'],
  ['refresh-es256-id-token', 'floor-refresh'],
  ['cc-reference', 'floor-reference'],
  ['cc-dpop', 'floor-dpop'],
];

export interface StoreBound {
  readonly row: Row;
  readonly storeFloor: Row;
  readonly store: 'SQLite' | 'PostgreSQL';
  /** The signatures, each with its µs (none for a reference token). */
  readonly signatures: ReadonlyArray<readonly [string, number]>;
  /** The floor plus the signatures; undefined when the floor was not measured. */
  readonly signatureBound: number | undefined;
  /** What the store calls add to the floor (store floor − floor); undefined without the floor. */
  readonly storePart: number | undefined;
  /** The store floor's CPU plus the signatures. */
  readonly bound: number;
  readonly oursOverBound: number;
}

const isRow = (r: Row | Skipped | undefined): r is Row => r !== undefined && !('skipped' in r);

/** Every durable row measured beside its store floor in this run, SQLite first, then PostgreSQL. */
export function storeBounds(results: BenchResults): StoreBound[] {
  const sig = results.signatureMicros;
  if (!sig) return [];
  const parts = new Map(signatureParts(sig));
  const floorCpu = results.floor?.cpuMicrosPerRequest;
  const byId = (list: ReadonlyArray<Row | Skipped> | undefined, id: string): Row | undefined => list?.filter(isRow).find((r) => r.id === id);
  return (['SQLite', 'PostgreSQL'] as const).flatMap((store) => {
    const suffix = store === 'SQLite' ? '' : '-pg';
    return storeFloorOf.flatMap(([id, floorId]): StoreBound[] => {
      const row = byId(results.scenarios, `${id}${suffix}`);
      const storeFloor = byId(results.storeFloors, `${floorId}${suffix}`);
      const made = parts.get(id) ?? [];
      if (row?.cpuMicrosPerRequest === undefined || storeFloor?.cpuMicrosPerRequest === undefined || made.some(([, us]) => us === undefined)) return [];
      const signatures = made.map(([name, us]) => [name, us!] as const);
      const signed = signatures.reduce((sum, [, us]) => sum + us, 0);
      const bound = storeFloor.cpuMicrosPerRequest + signed;
      return [{
        row, storeFloor, store, signatures,
        signatureBound: floorCpu === undefined ? undefined : floorCpu + signed,
        storePart: floorCpu === undefined ? undefined : storeFloor.cpuMicrosPerRequest - floorCpu,
        bound,
        oursOverBound: row.cpuMicrosPerRequest / bound,
      }];
    });
  });
}
