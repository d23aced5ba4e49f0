/**
 * The signing keys every node shares. Managed keys live in the store; configured keys (PEM or
 * JWK files, environment variables) take precedence for their algorithm. Keys are imported
 * once; the hot path only reads the in-memory set.
 *
 * Rotation follows Duende's automatic key management: a new key is published in the JWKS for
 * `propagationTime` before it signs, and a replaced key stays published until every token it
 * signed has expired.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Clock, Logger } from '../../sdk/contracts.js';
import type { ResolvedConfig, SigningAlgorithm } from '../../config/schema.js';
import type { SigningKeyRecord, Store } from '../../store/store.js';
import { loadConfiguredKeys } from './configured-keys.js';

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
}

export interface KeyRingDeps {
  config: ResolvedConfig;
  store: Store;
  clock: Clock;
  logger: Logger;
}

export interface KeyRing {
  /** The key that signs now for an algorithm. */
  signingKey(alg: string): SigningKey;
  /** Public keys by `kid`, for verification; reloads from the store once for an unknown kid. */
  verificationKey(kid: string): Promise<SigningKey | undefined>;
  /** The algorithms the ring signs with. */
  readonly algorithms: readonly string[];
  /** The JWKS document, serialized once per change. */
  jwksJson(): string;
  /** Re-reads the store and rotates when due. */
  refresh(): Promise<void>;
  start(): void;
  stop(): void;
}

const generateOptions = (alg: string): { extractable: true; modulusLength?: number; crv?: string } =>
  alg.startsWith('RS') || alg.startsWith('PS') ? { extractable: true, modulusLength: 2048 } : { extractable: true };

async function fromRecord(record: SigningKeyRecord): Promise<SigningKey> {
  const jwk = JSON.parse(record.privateJwk) as JWK;
  const privateKey = (await importJWK(jwk, record.alg)) as CryptoKey;
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
  const publicJwk: JWK = { ...pub, kid: record.kid, alg: record.alg, use: 'sig' };
  const publicKey = (await importJWK(publicJwk, record.alg)) as CryptoKey;
  return { kid: record.kid, alg: record.alg, privateKey, publicKey, publicJwk };
}

export async function createKeyRing({ config, store, clock, logger }: KeyRingDeps): Promise<KeyRing> {
  const algorithms = [...new Set<SigningAlgorithm>([config.signing.accessTokenAlgorithm, 'RS256'])];
  const configured = await loadConfiguredKeys(config.signing.keys);
  const configuredAlgs = new Set(configured.map((k) => k.alg));
  const managedAlgs = algorithms.filter((a) => !configuredAlgs.has(a));
  for (const alg of configuredAlgs) if (!algorithms.includes(alg as SigningAlgorithm)) algorithms.push(alg as SigningAlgorithm);

  // Tokens signed by a retiring key must stay verifiable for their whole lifetime.
  const maxTokenLifetimeMs = 1000 * Math.max(3600, ...config.clients.map((c) => c.accessTokenLifetime)) + 300_000;
  const { rotationInterval, propagationTime, refreshInterval } = config.signing;

  const imported = new Map<string, SigningKey>();
  let signing = new Map<string, SigningKey>();
  let published = new Map<string, SigningKey>();
  let jwks = '{"keys":[]}';
  let lastReload = 0;
  let timer: NodeJS.Timeout | undefined;

  async function importRecord(record: SigningKeyRecord): Promise<SigningKey> {
    let key = imported.get(record.kid);
    if (!key) {
      key = await fromRecord(record);
      imported.set(record.kid, key);
    }
    return key;
  }

  async function createManagedKey(alg: string, activatesAt: number): Promise<void> {
    const { privateKey } = await generateKeyPair(alg, generateOptions(alg));
    const now = clock.now();
    const record: SigningKeyRecord = {
      kid: randomUUID().replaceAll('-', ''),
      alg,
      privateJwk: JSON.stringify(await exportJWK(privateKey)),
      createdAt: now,
      activatesAt,
      retiresAt: undefined,
    };
    await store.addSigningKey(record);
    logger.info({ kid: record.kid, alg, activatesAt: new Date(activatesAt).toISOString() }, 'signing key created');
  }

  const newestActive = (records: SigningKeyRecord[], now: number): SigningKeyRecord | undefined =>
    records
      .filter((r) => r.activatesAt <= now && (r.retiresAt === undefined || r.retiresAt > now))
      .sort((a, b) => b.activatesAt - a.activatesAt || (a.kid < b.kid ? 1 : -1))[0];

  /** Brings the stored keys of one algorithm up to date; returns whether it wrote anything. */
  async function rotate(alg: string, records: SigningKeyRecord[], now: number): Promise<boolean> {
    const active = newestActive(records, now);
    if (!active) {
      // First start (or every key retired): nothing can have cached a JWKS yet, so sign at once.
      await createManagedKey(alg, now);
      return true;
    }
    let wrote = false;
    const newest = records.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
    if (newest === active && now - active.createdAt >= 1000 * Math.max(rotationInterval - propagationTime, 0)) {
      await createManagedKey(alg, now + 1000 * propagationTime);
      wrote = true;
    }
    for (const r of records) {
      if (r === active || r.activatesAt > now) continue;
      if (r.retiresAt === undefined) {
        await store.updateSigningKey(r.kid, { retiresAt: active.activatesAt + maxTokenLifetimeMs });
        wrote = true;
      } else if (r.retiresAt <= now) {
        await store.removeSigningKey(r.kid);
        imported.delete(r.kid);
        wrote = true;
      }
    }
    return wrote;
  }

  async function reload(): Promise<void> {
    const now = clock.now();
    let records = await store.listSigningKeys();
    let wrote = false;
    for (const alg of managedAlgs) wrote = (await rotate(alg, records.filter((r) => r.alg === alg), now)) || wrote;
    if (wrote) records = await store.listSigningKeys();

    const nextSigning = new Map<string, SigningKey>();
    const nextPublished = new Map<string, SigningKey>();
    for (const key of configured) {
      if (!nextSigning.has(key.alg)) nextSigning.set(key.alg, key);
      nextPublished.set(key.kid, key);
    }
    for (const alg of managedAlgs) {
      const mine = records.filter((r) => r.alg === alg);
      const active = newestActive(mine, now);
      if (active) nextSigning.set(alg, await importRecord(active));
      for (const r of mine) {
        if (r.retiresAt === undefined || r.retiresAt > now) nextPublished.set(r.kid, await importRecord(r));
      }
    }
    signing = nextSigning;
    published = nextPublished;
    jwks = JSON.stringify({ keys: [...published.values()].map((k) => k.publicJwk) });
    lastReload = now;
  }

  await reload();

  return {
    algorithms,
    signingKey(alg) {
      const key = signing.get(alg);
      if (!key) throw new Error(`no signing key for ${alg}`);
      return key;
    },
    async verificationKey(kid) {
      const known = published.get(kid);
      if (known) return known;
      // Another node may have created a key since the last reload; look once, at most every 5 s.
      if (clock.now() - lastReload > 5000) {
        await reload();
        return published.get(kid);
      }
      return undefined;
    },
    jwksJson: () => jwks,
    refresh: reload,
    start() {
      timer = setInterval(() => {
        reload().catch((err: unknown) => logger.warn({ err }, 'signing key refresh failed; keeping the current keys'));
      }, refreshInterval * 1000);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
