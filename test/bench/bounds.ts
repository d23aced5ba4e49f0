/**
 * What a row cannot do without, in CPU µs per request, computed within one run. The signature
 * bound is the floor (bare Koa) plus the signatures the row makes and checks; the store bound
 * (issue 40) adds what the row's store calls cost on top of the floor, as its store floor row
 * measured them (bare Koa plus exactly those calls, test/bench/store-floor.ts):
 *
 *   bound = signature bound + (store floor − floor) = store floor + signatures
 *
 * so "ours ÷ bound" is how much of a row's cost is the service's own work. A full run measures
 * each durable row in rounds alternating with its store floor, and the signatures just before it
 * (main.ts); the ratio is then taken round by round, so the machine's drift over a run of an
 * hour does not land on one side of it.
 */
import { median } from './measure.js';
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
  /**
   * Ours over the bound. When the store floor ran beside the row, the median over rounds of each
   * round's ratio, so a machine that slows down during a run slows both sides of it alike.
   */
  readonly oursOverBound: number;
  /** Whether the store floor ran in rounds alternating with the row (and its signatures were measured just before). */
  readonly paired: boolean;
}

const isRow = (r: Row | Skipped | undefined): r is Row => r !== undefined && !('skipped' in r);

/** Median over the rounds of ours ÷ (the floor's round + signatures); undefined when a round has no CPU figure. */
function pairedRatio(row: Row, storeFloor: Row, signed: number): number | undefined {
  if (row.rounds.length === 0 || row.rounds.length !== storeFloor.rounds.length) return undefined;
  const ratios = row.rounds.map((round, i) => {
    const ours = round.cpuMicrosPerRequest;
    const floor = storeFloor.rounds[i]!.cpuMicrosPerRequest;
    return ours === undefined || floor === undefined ? undefined : ours / (floor + signed);
  });
  return ratios.every((r): r is number => r !== undefined) ? median(ratios) : undefined;
}

/** Every durable row measured beside its store floor in this run, SQLite first, then PostgreSQL. */
export function storeBounds(results: BenchResults): StoreBound[] {
  const floorCpu = results.floor?.cpuMicrosPerRequest;
  const byId = (list: ReadonlyArray<Row | Skipped> | undefined, id: string): Row | undefined => list?.filter(isRow).find((r) => r.id === id);
  const floors = (results.storeFloors ?? []).filter(isRow);
  return (['SQLite', 'PostgreSQL'] as const).flatMap((store) => {
    const suffix = store === 'SQLite' ? '' : '-pg';
    return storeFloorOf.flatMap(([id, floorId]): StoreBound[] => {
      const row = byId(results.scenarios, `${id}${suffix}`);
      if (row?.cpuMicrosPerRequest === undefined) return [];
      // The floor measured beside this row when the run paired them, else the one measured on its own.
      const storeFloor = floors.find((f) => f.pairedWith === row.id) ?? floors.find((f) => f.id === `${floorId}${suffix}` && f.pairedWith === undefined);
      const sig = storeFloor?.signatureMicros ?? results.signatureMicros;
      if (storeFloor?.cpuMicrosPerRequest === undefined || !sig) return [];
      const made = new Map(signatureParts(sig)).get(id) ?? [];
      if (made.some(([, us]) => us === undefined)) return [];
      const signatures = made.map(([name, us]) => [name, us!] as const);
      const signed = signatures.reduce((sum, [, us]) => sum + us, 0);
      const bound = storeFloor.cpuMicrosPerRequest + signed;
      const paired = storeFloor.pairedWith === row.id;
      return [{
        row, storeFloor, store, signatures,
        signatureBound: floorCpu === undefined ? undefined : floorCpu + signed,
        storePart: floorCpu === undefined ? undefined : storeFloor.cpuMicrosPerRequest - floorCpu,
        bound,
        oursOverBound: (paired ? pairedRatio(row, storeFloor, signed) : undefined) ?? row.cpuMicrosPerRequest / bound,
        paired,
      }];
    });
  });
}
