import { describe, expect, it } from 'vitest';
import { storeBounds } from './bounds.js';
import { consoleBounds, markdown, type BenchResults, type Row } from './report.js';

const row = (id: string, title: string, cpuMicrosPerRequest: number | undefined): Row => ({
  id, title, server: 'svc, CPU 0', rps: 1000, p50: 5, p99: 10, cpuMicrosPerRequest, ratioToFloor: undefined, oidcProvider: undefined,
  answers: { '200 token': 1000 }, rounds: [], note: undefined,
});

function results(overrides: Partial<BenchResults> = {}): BenchResults {
  return {
    date: '2026-11-27T14:00:00.000Z',
    command: 'npm run bench',
    machine: { cpu: 'test', cores: 2, node: 'v20', os: 'Linux', loadAverageAtStart: [0], loadAverageAtEnd: [0] },
    settings: { connections: 64, warmupSeconds: 1, roundSeconds: 2, rounds: 1, pinned: true, pinning: 'pinned', assertionAlg: 'RS256' },
    floor: row('floor', 'bare Koa (floor)', 50),
    floorAtEnd: undefined,
    signatureMicros: { ES256: 40, RS256: 300, verify: { ES256: 75, RS256: 25 } },
    storeFloors: [
      row('floor-code', 'store floor: code', 120),
      row('floor-reference', 'store floor: reference', 70),
      row('floor-dpop-pg', 'store floor: DPoP, PostgreSQL', 90),
      { id: 'floor-refresh-pg', title: 'store floor: refresh, PostgreSQL', skipped: 'PostgreSQL is unreachable' },
    ],
    scenarios: [
      row('code', 'code redemption, RS256 ID token', 700),
      row('code-es256-id-token', 'code redemption, ES256 ID token', 400),
      row('cc-reference', 'reference token', 91),
      row('cc-dpop-pg', 'DPoP — PostgreSQL', 300),
      row('refresh-pg', 'refresh — PostgreSQL', 500),
      row('cc-es256', 'JWT ES256', 100),
    ],
    oidcProvider: [],
    memory: undefined,
    cluster: [],
    signingPool: [],
    notes: [],
    ...overrides,
  };
}

describe('the signature and store bound (issue 40)', () => {
  it('is the store floor plus the signatures: the signature bound plus what the store calls add to the floor', () => {
    const bounds = storeBounds(results()).map((b) => ({
      id: b.row.id, store: b.store, signatureBound: b.signatureBound, storePart: b.storePart, bound: b.bound, ratio: Number(b.oursOverBound.toFixed(3)),
    }));
    expect(bounds).toEqual([
      // floor 50 + ES256 40 + RS256 300 = 390; the store calls add 120 − 50 = 70.
      { id: 'code', store: 'SQLite', signatureBound: 390, storePart: 70, bound: 460, ratio: Number((700 / 460).toFixed(3)) },
      { id: 'code-es256-id-token', store: 'SQLite', signatureBound: 130, storePart: 70, bound: 200, ratio: 2 },
      // A reference token signs nothing: its bound is its store floor.
      { id: 'cc-reference', store: 'SQLite', signatureBound: 50, storePart: 20, bound: 70, ratio: 1.3 },
      { id: 'cc-dpop-pg', store: 'PostgreSQL', signatureBound: 165, storePart: 40, bound: 205, ratio: Number((300 / 205).toFixed(3)) },
    ]);
  });

  it('leaves out a row whose store floor was skipped or not run, and a row with no store floor', () => {
    const ids = storeBounds(results()).map((b) => b.row.id);
    expect(ids).not.toContain('refresh-pg');
    expect(ids).not.toContain('cc-es256');
  });

  it('still states the bound without the bare floor, but not the signature bound or the store part', () => {
    const [code] = storeBounds(results({ floor: undefined }));
    expect(code).toMatchObject({ bound: 460, signatureBound: undefined, storePart: undefined });
  });

  it('shows each bound and "ours ÷ bound" in results.md and on the console, and the store floors in the main table', () => {
    const md = markdown(results());
    expect(md).toContain('## The signature and store bound');
    expect(md).toContain('| code redemption, ES256 ID token | SQLite | 400 | ES256 signature 40 + ES256 ID token signature 40 | 130 | 120 | 70 | 200 | 2.00× |');
    expect(md).toContain('| reference token | SQLite | 91 | none | 50 | 70 | 20 | 70 | 1.30× |');
    expect(md).toContain('| store floor: code | svc, CPU 0 | 1,000 |');
    expect(md).toContain('| store floor: refresh, PostgreSQL | | | | | | | | | | | skipped: PostgreSQL is unreachable |');
    const console = consoleBounds(results())!;
    expect(console.split('\n')[0]).toMatch(/^scenario \(bound = signature bound \+ store part\)\s+store\s+CPU µs\/req\s+signature bound\s+store floor\s+store part\s+bound\s+ours ÷ bound$/);
    expect(console).toMatch(/DPoP — PostgreSQL\s+PostgreSQL\s+300\s+165\s+90\s+40\s+205\s+1\.46×/);
  });

  it('takes a paired store floor round by round, with the signatures measured beside it', () => {
    const round = (cpuMicrosPerRequest: number) => ({ rps: 1000, p50: 5, p99: 10, requests: 6000, answers: { '200 token': 6000 }, cpuMicrosPerRequest });
    // The machine slows down from round to round; ours and its floor slow alike.
    const ours: Row = { ...row('refresh-pg', 'refresh — PostgreSQL', 330), rounds: [round(300), round(330), round(390)] };
    const beside: Row = {
      ...row('floor-refresh-pg', 'store floor: refresh, PostgreSQL (beside "refresh — PostgreSQL")', 140),
      rounds: [round(110), round(140), round(180)],
      pairedWith: 'refresh-pg',
      signatureMicros: { ES256: 50, RS256: 100, verify: { ES256: 75, RS256: 25 } },
    };
    const [refresh] = storeBounds(results({ scenarios: [ours], storeFloors: [row('floor-refresh-pg', 'store floor: refresh, alone', 90), beside] }));
    // Its own signatures (ES256 50 + RS256 100), not the run's; the floor beside it, not the one alone.
    expect(refresh).toMatchObject({ paired: true, bound: 140 + 150, storeFloor: { pairedWith: 'refresh-pg' } });
    // Round by round: 300/260 = 1.154, 330/290 = 1.138, 390/330 = 1.182; the median is 300/260, not the medians' 330/290.
    expect(refresh!.oursOverBound).toBeCloseTo(300 / 260, 6);
    const md = markdown(results({ scenarios: [ours], storeFloors: [beside] }));
    expect(md).toContain('| refresh — PostgreSQL | PostgreSQL | 330 | ES256 signature 50 + RS256 ID token signature 100 | 200 | 140 (beside) | 90 | 290 | 1.15× |');
    expect(md).toContain('Rows marked "beside" ran in rounds alternating with their store floor');
  });

  it('has no section without store floors, as in runs before them', () => {
    expect(markdown(results({ storeFloors: undefined }))).not.toContain('store bound');
    expect(consoleBounds(results({ storeFloors: undefined }))).toBeUndefined();
  });
});
