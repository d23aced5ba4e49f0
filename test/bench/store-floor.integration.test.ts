import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStoreFloor, type StoreFloor } from './store-floor.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';

const proof = (jti: string, iat: number): string =>
  `e30.${Buffer.from(JSON.stringify({ jti, htm: 'POST', htu: 'http://127.0.0.1/connect/token', iat })).toString('base64url')}.signature`;

/** The store floor answers each row's requests as the service's store would: one use of a code or refresh token, one of a proof. */
function behavesAsTheRows(open: () => Promise<StoreFloor>): void {
  let floor: StoreFloor;
  beforeAll(async () => {
    floor = await open();
  });
  afterAll(() => floor.close());

  it('redeems a seeded code once, with a refresh token that rotates once', async () => {
    const [code] = await floor.seed('code', 'webapp', 1);
    const refreshToken = await floor.redeemCode(code!);
    expect(refreshToken).toMatch(/^[0-9a-f]{12}[\w-]{43}$/);
    expect(await floor.redeemCode(code!)).toBeUndefined();
    const rotated = await floor.rotateRefresh(refreshToken!);
    expect(rotated).toMatch(/^[0-9a-f]{12}[\w-]{43}$/);
    expect(await floor.rotateRefresh(refreshToken!)).toBeUndefined();
    expect(await floor.rotateRefresh(rotated!)).toBeDefined();
  });

  it('rotates seeded refresh tokens, and refuses an unknown one', async () => {
    const tokens = await floor.seed('refresh', 'webapp', 3);
    expect(new Set(tokens).size).toBe(3);
    for (const token of tokens) expect(await floor.rotateRefresh(token)).toBeDefined();
    expect(await floor.rotateRefresh('000000000000' + 'x'.repeat(43))).toBeUndefined();
  });

  it('stores reference tokens under fresh handles and a proof\'s jti once', async () => {
    const [a, b] = await Promise.all([floor.issueReference('http://127.0.0.1', 'm2m-reference'), floor.issueReference('http://127.0.0.1', 'm2m-reference')]);
    expect(a).not.toBe(b);
    const iat = Math.floor(Date.now() / 1000);
    expect(await floor.recordProofJti(proof('jti-1', iat))).toBe(true);
    expect(await floor.recordProofJti(proof('jti-1', iat))).toBe(false);
    expect(await floor.recordProofJti(proof('jti-2', iat))).toBe(true);
  });
}

describe('the store floor on SQLite', () => {
  behavesAsTheRows(() => openStoreFloor('sqlite::memory:', process.cwd()));
});

const skip = await postgresSkipReason('the store floor on PostgreSQL');
describe.skipIf(skip)('the store floor on PostgreSQL', () => {
  let schema: TestSchema | undefined;
  // Registered first, so it runs after the floor's pool is closed.
  afterAll(() => schema?.drop());
  behavesAsTheRows(async () => {
    schema = await createTestSchema('store_floor');
    return openStoreFloor(schema.url, process.cwd());
  });
});
