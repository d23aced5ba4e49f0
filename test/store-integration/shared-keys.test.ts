/**
 * Nodes that share a PostgreSQL database share their signing keys, even when they start or
 * rotate at the same moment: every node signs with and publishes the same keys.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JWK } from 'jose';
import { checkConfig } from '../../src/config/load.js';
import { createKeyRing, type KeyRing } from '../../src/oauth/keys/key-ring.js';
import type { Logger } from '../../src/sdk/contracts.js';
import { openPostgres } from '../../src/store/sql/postgres.js';
import type { Store } from '../../src/store/store.js';
import { createTestSchema, postgresSkipReason, postgresUrl, type TestSchema } from '../support/pg.js';

const skip = await postgresSkipReason('shared signing key tests');
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
const DAY = 86_400_000;
const HOUR = 3_600_000;

describe.skipIf(skip)('signing keys shared through PostgreSQL', () => {
  let schema: TestSchema;
  const opened: Store[] = [];
  const rings: KeyRing[] = [];

  beforeAll(async () => {
    schema = await createTestSchema('shared_keys');
  });
  afterEach(async () => {
    for (const ring of rings.splice(0)) ring.stop();
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await schema.query('drop table if exists signing_keys, persisted_grants, rate_counters, client_records, client_secrets, client_records_version, users, user_identities, user_second_factors, logout_deliveries, svc_schema_migrations cascade');
  });
  afterAll(() => schema?.drop());

  const config = checkConfig(
    {
      issuer: 'https://issuer.test',
      store: 'memory',
      pluginDirs: [],
      signing: { rotationInterval: DAY / 1000, propagationTime: HOUR / 1000 },
    },
    process.cwd(),
  );

  async function nodes(count: number, clock: { now(): number }): Promise<KeyRing[]> {
    const stores = Array.from({ length: count }, () => openPostgres(postgresUrl, { schema: schema.name, maxConnections: 3 }));
    opened.push(...stores);
    await Promise.all(stores.map((s) => s.migrate()));
    const started = await Promise.all(stores.map((store) => createKeyRing({ config, store, clock, logger: silent })));
    rings.push(...started);
    return started;
  }

  const published = (ring: KeyRing): string[] =>
    (JSON.parse(ring.jwksJson()) as { keys: JWK[] }).keys.map((k) => k.kid!).sort();

  it('gives nodes that start together on an empty database one key per algorithm', async () => {
    const clock = { now: () => Date.UTC(2030, 0, 1) };
    const started = await nodes(4, clock);

    const stored = await schema.query<{ alg: string }>('select alg from signing_keys');
    expect(stored.map((r) => r.alg).sort()).toEqual(['ES256', 'RS256']);
    for (const ring of started) {
      expect(published(ring)).toEqual(published(started[0]!));
      expect(ring.signingKey('ES256').kid).toBe(started[0]!.signingKey('ES256').kid);
      expect(ring.signingKey('RS256').kid).toBe(started[0]!.signingKey('RS256').kid);
    }
  });

  it('creates one successor when nodes rotate at the same moment', async () => {
    const clock = { at: Date.UTC(2030, 0, 1), now(): number { return this.at; } };
    const started = await nodes(4, clock);
    const old = started[0]!.signingKey('ES256').kid;

    clock.at += DAY - HOUR;
    await Promise.all(started.map((ring) => ring.refresh()));

    const es = await schema.query<{ kid: string }>(`select kid from signing_keys where alg = 'ES256'`);
    expect(es).toHaveLength(2);
    for (const ring of started) {
      expect(published(ring)).toEqual(published(started[0]!));
      expect(ring.signingKey('ES256').kid).toBe(old);
    }

    clock.at += HOUR;
    await Promise.all(started.map((ring) => ring.refresh()));
    const next = es.map((r) => r.kid).find((kid) => kid !== old);
    for (const ring of started) expect(ring.signingKey('ES256').kid).toBe(next);
  });
});
