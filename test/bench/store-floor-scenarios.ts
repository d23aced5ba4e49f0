/**
 * The store floor rows (issue 40): each durable row's requests sent to bare Koa plus exactly that
 * row's store calls (test/bench/bare-koa-store.mjs, test/bench/store-floor.ts), on SQLite and on
 * PostgreSQL. The requests are the rows' own (the same form POST, Basic header and DPoP proof);
 * codes and refresh tokens are seeded in the floor's store before each round, outside the timed
 * load, as the code and refresh rows make theirs. results.md then states each row against its
 * bound: the signature bound plus what the store calls add to the floor.
 */
import { seededCodeLifetimeSeconds } from './store-floor.js';
import { clientCredentials, codePool, dpopClientCredentials, pkcePair, redemption, rotation, usableForMs, type CodeMaker, type Scenario, type ServerKind } from './scenarios.js';

/** The durable rows a store floor stands beside; its id is `floor-<row>`, with `-pg` on PostgreSQL. */
// The reference row first: its rate sizes the others' first pools.
export const storeFloorRows = ['reference', 'dpop', 'code', 'refresh'] as const;
export type StoreFloorRow = (typeof storeFloorRows)[number];

/** The web app whose requests the floor answers: its client does not matter to the floor, which authenticates nobody. */
const clientId = 'webapp';

/** Asks the floor to store `count` codes or refresh tokens (with their families), 10,000 at a time. */
async function seeded(url: string, kind: 'code' | 'refresh', count: number): Promise<string[]> {
  const handles: string[] = [];
  while (handles.length < count) {
    const res = await fetch(`${url}/bench/seed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind, client_id: clientId, count: Math.min(count - handles.length, 10_000) }),
    });
    if (!res.ok) throw new Error(`POST /bench/seed answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    handles.push(...((await res.json()) as { handles: string[] }).handles);
  }
  return handles;
}

/** What the row is; the calls it makes are in store-floor.ts. */
const titles: Record<StoreFloorRow, string> = {
  code: 'code redemption (get; consume + 2 inserts in one transaction)',
  refresh: 'refresh rotation (1 get; consume + 1 insert in one transaction)',
  reference: 'reference token (1 insert)',
  dpop: 'DPoP proof jti (1 insert)',
};

function storeFloor(row: StoreFloorRow, store: 'SQLite' | 'PostgreSQL'): Scenario {
  const server: ServerKind = store === 'SQLite' ? 'store-floor-sqlite' : 'store-floor-postgres';
  const suffix = store === 'SQLite' ? '' : '-pg';
  return {
    id: `floor-${row}${suffix}`,
    title: `store floor: bare Koa + the store calls of a ${titles[row]}, ${store}`,
    server,
    async prepare({ url, fixture, measured }) {
      // The floor's own rate sizes the first pool: it runs far faster than the rows it stands beside.
      const rate = Math.min(measured.get(`floor-reference${suffix}`) ?? measured.get('floor') ?? 5000, 10_000);
      switch (row) {
        case 'code': {
          const { verifier } = pkcePair();
          const maker: CodeMaker = { redeem: redemption(verifier), how: 'seeded in its store (POST /bench/seed)', usableForMs: usableForMs(seededCodeLifetimeSeconds), make: (count) => seeded(url, 'code', count) };
          return codePool(fixture, clientId, maker, rate);
        }
        case 'refresh':
          return rotation(fixture, clientId, await seeded(url, 'refresh', 512));
        case 'reference':
          return { spec: clientCredentials(fixture, 'm2m-reference') };
        case 'dpop':
          return dpopClientCredentials(url, fixture, measured, `floor-reference${suffix}`);
      }
    },
  };
}

export const storeFloorScenarios: readonly Scenario[] = (['SQLite', 'PostgreSQL'] as const).flatMap((store) => storeFloorRows.map((row) => storeFloor(row, store)));
