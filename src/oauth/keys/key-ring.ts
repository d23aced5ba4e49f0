/**
 * The signing keys every node shares. Managed keys live in the store; configured keys (PEM or
 * JWK files, environment variables) take precedence for their algorithm. Keys are imported
 * once; the hot path only reads the in-memory set.
 *
 * Rotation follows Duende's automatic key management: a new key is published in the JWKS for
 * `propagationTime` before it signs, and a replaced key stays published until every token it
 * signed has expired.
 *
 * Nodes sharing a store agree on every key: only the node whose lease record lands first (the
 * store's `add` is atomic across nodes) creates the first key or a successor; the others wait
 * for it to appear.
 */
import { createPrivateKey, randomUUID, type JsonWebKey } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Clock, Logger } from '../../sdk/contracts.js';
import { BootError } from '../../config/boot-error.js';
import type { ResolvedConfig, SigningAlgorithm } from '../../config/schema.js';
import { DuplicateKeyError, StoreUnavailableError, type SigningKeyRecord, type Store } from '../../store/store.js';
import { loadConfiguredKeys } from './configured-keys.js';
import { signCompactJws, type CompactSigner } from '../../sdk/jws.js';
import { createKeyProtector, type KeyProtector } from './key-protection.js';

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  /** Signs a JWS compact serialization with this key, synchronously (the access-token hot path). */
  readonly sign: CompactSigner;
  readonly publicKey: CryptoKey;
  readonly publicJwk: JWK;
}

export interface KeyRingDeps {
  config: ResolvedConfig;
  store: Store;
  clock: Clock;
  logger: Logger;
  /** How long a node that lost the race to create a key waits for the winner's key (real time). Default 5000. */
  keyWaitMs?: number;
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
  /** Starts the periodic refresh (every `signing.refreshInterval`). */
  start(): void;
  stop(): void;
}

/** Lease records in the store that let exactly one node create a given key. */
const leaseType = 'signing_key_lease';
const leaseMs = 60_000;
/** Poll period while waiting for another node's key. */
const keyPollMs = 50;
/** Skew allowed on token lifetimes (as in validation) plus slack. */
const retentionSlackMs = 300_000;

const generateOptions = (alg: string): { extractable: true; modulusLength?: number; crv?: string } =>
  alg.startsWith('RS') || alg.startsWith('PS') ? { extractable: true, modulusLength: 2048 } : { extractable: true };

async function fromRecord(record: SigningKeyRecord, protector: KeyProtector): Promise<SigningKey> {
  const jwk = JSON.parse(protector.open(record)) as JWK;
  const privateKey = (await importJWK(jwk, record.alg)) as CryptoKey;
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
  const publicJwk: JWK = { ...pub, kid: record.kid, alg: record.alg, use: 'sig' };
  const publicKey = (await importJWK(publicJwk, record.alg)) as CryptoKey;
  const signer = signCompactJws(createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' }), record.alg);
  return { kid: record.kid, alg: record.alg, privateKey, publicKey, publicJwk, sign: signer };
}

/** The algorithms whose keys the service creates and rotates itself: those no configured key covers. */
function managedAlgsOf(algorithms: readonly string[], configured: readonly SigningKey[]): string[] {
  const configuredAlgs = new Set(configured.map((k) => k.alg));
  return algorithms.filter((a) => !configuredAlgs.has(a));
}

export async function createKeyRing({ config, store, clock, logger, keyWaitMs = 5000 }: KeyRingDeps): Promise<KeyRing> {
  const algorithms = [...new Set<SigningAlgorithm>([config.signing.accessTokenAlgorithm, 'RS256'])];
  const configured = await loadConfiguredKeys(config.signing.keys);
  const protector = createKeyProtector(config.signing.keyEncryptionKeys);
  const configuredAlgs = new Set(configured.map((k) => k.alg));
  const managedAlgs = managedAlgsOf(algorithms, configured);
  if (!protector.enabled && managedAlgs.length > 0 && config.store !== 'memory') {
    logger.warn({ store: config.store.split(':')[0] }, 'signing keys are stored unencrypted: set signing.keyEncryptionKeys (see README, "Signing keys")');
  }
  for (const alg of configuredAlgs) if (!algorithms.includes(alg as SigningAlgorithm)) algorithms.push(alg as SigningAlgorithm);

  const { rotationInterval, propagationTime, refreshInterval } = config.signing;
  // Tokens signed by a replaced key must stay verifiable for their whole lifetime, counted from
  // the moment the last node stops signing with it: up to one refresh interval after the switch.
  const retentionMs =
    1000 * (Math.max(3600, ...config.clients.map((c) => c.accessTokenLifetime)) + refreshInterval) + retentionSlackMs;

  const imported = new Map<string, SigningKey>();
  let signing = new Map<string, SigningKey>();
  let published = new Map<string, SigningKey>();
  let jwks = '{"keys":[]}';
  let lastReload = 0;
  const inFlight = new Map<boolean, Promise<void>>();
  let timer: NodeJS.Timeout | undefined;

  async function importRecord(record: SigningKeyRecord): Promise<SigningKey> {
    let key = imported.get(record.kid);
    if (!key) {
      key = await fromRecord(record, protector);
      imported.set(record.kid, key);
    }
    return key;
  }

  async function createManagedKey(alg: string, activatesAt: number): Promise<void> {
    const { privateKey } = await generateKeyPair(alg, generateOptions(alg));
    const now = clock.now();
    const kid = randomUUID().replaceAll('-', '');
    const record: SigningKeyRecord = {
      kid,
      alg,
      privateJwk: protector.seal(kid, alg, JSON.stringify(await exportJWK(privateKey))),
      createdAt: now,
      activatesAt,
      retiresAt: undefined,
    };
    await store.addSigningKey(record);
    logger.info({ kid: record.kid, alg, activatesAt: new Date(activatesAt).toISOString() }, 'signing key created');
  }

  /** Takes the lease on creating one key; `false` when another node holds it. */
  async function claim(lease: string, now: number): Promise<boolean> {
    try {
      await store.add({
        key: `signing-key-lease:${lease}`,
        type: leaseType,
        clientId: '',
        subjectId: undefined,
        sessionId: undefined,
        createdAt: now,
        expiresAt: now + leaseMs,
        consumedAt: undefined,
        data: '{}',
      });
      return true;
    } catch (err) {
      if (err instanceof DuplicateKeyError) return false;
      throw err;
    }
  }

  /** Waits (bounded) until the store holds a key of `alg` that `found` accepts. */
  async function waitForKey(alg: string, found: (r: SigningKeyRecord, now: number) => boolean): Promise<boolean> {
    const deadline = Date.now() + keyWaitMs;
    do {
      await sleep(keyPollMs);
      const now = clock.now();
      if ((await store.listSigningKeys()).some((r) => r.alg === alg && found(r, now))) return true;
    } while (Date.now() < deadline);
    return false;
  }

  const isActive = (r: SigningKeyRecord, now: number): boolean =>
    r.activatesAt <= now && (r.retiresAt === undefined || r.retiresAt > now);

  const newestActive = (records: SigningKeyRecord[], now: number): SigningKeyRecord | undefined =>
    records
      .filter((r) => isActive(r, now))
      .sort((a, b) => b.activatesAt - a.activatesAt || (a.kid < b.kid ? 1 : -1))[0];

  /** Brings the stored keys of one algorithm up to date; returns whether the stored set changed. */
  async function rotate(alg: string, records: SigningKeyRecord[], now: number): Promise<boolean> {
    const active = newestActive(records, now);
    if (!active) {
      // First start (or every key retired): nothing can have cached a JWKS yet, so sign at once.
      if (await claim(`${alg}:first`, now)) {
        await createManagedKey(alg, now);
      } else if (!(await waitForKey(alg, isActive))) {
        logger.warn({ alg }, 'another node claimed the first signing key but none appeared; creating one here');
        await createManagedKey(alg, clock.now());
      }
      return true;
    }
    let changed = false;
    const newest = records.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
    if (newest === active && now - active.createdAt >= 1000 * Math.max(rotationInterval - propagationTime, 0)) {
      if (await claim(`${alg}:after:${active.kid}`, now)) {
        await createManagedKey(alg, now + 1000 * propagationTime);
      } else {
        // Another node is creating the successor; a miss here is caught up by the next refresh.
        await waitForKey(alg, (r) => r.kid !== active.kid && r.createdAt >= active.createdAt);
      }
      changed = true;
    }
    for (const r of records) {
      if (r === active || r.activatesAt > now) continue;
      if (r.retiresAt === undefined) {
        await store.updateSigningKey(r.kid, { retiresAt: active.activatesAt + retentionMs });
        changed = true;
      } else if (r.retiresAt <= now) {
        await store.removeSigningKey(r.kid);
        imported.delete(r.kid);
        changed = true;
      }
    }
    return changed;
  }

  /** Re-reads the keys, rotating first when `manage` is set; callers share a reload in flight. */
  function reload(manage: boolean): Promise<void> {
    let running = inFlight.get(manage);
    if (!running) {
      running = load(manage).finally(() => inFlight.delete(manage));
      inFlight.set(manage, running);
    }
    return running;
  }

  async function load(manage: boolean): Promise<void> {
    const now = clock.now();
    let records = await store.listSigningKeys();
    if (manage) {
      let changed = false;
      for (const alg of managedAlgs) changed = (await rotate(alg, records.filter((r) => r.alg === alg), now)) || changed;
      if (changed) records = await store.listSigningKeys();
    }
    const current = clock.now();

    const nextSigning = new Map<string, SigningKey>();
    const nextPublished = new Map<string, SigningKey>();
    for (const key of configured) {
      if (!nextSigning.has(key.alg)) nextSigning.set(key.alg, key);
      nextPublished.set(key.kid, key);
    }
    for (const alg of managedAlgs) {
      const mine = records.filter((r) => r.alg === alg);
      const active = newestActive(mine, current);
      if (active) nextSigning.set(alg, await importRecord(active));
      for (const r of mine) {
        if (r.retiresAt === undefined || r.retiresAt > current) nextPublished.set(r.kid, await importRecord(r));
      }
    }
    signing = nextSigning;
    published = nextPublished;
    jwks = JSON.stringify({ keys: [...published.values()].map((k) => k.publicJwk) });
    lastReload = current;
  }

  try {
    await reload(true);
  } catch (err) {
    if (err instanceof StoreUnavailableError) {
      throw new BootError('STORE_UNAVAILABLE', `signing keys: cannot load them from the store: ${err.message}`, { cause: err });
    }
    throw err;
  }

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
      // Only a read: a request never waits for a rotation.
      if (clock.now() - lastReload > 5000) {
        await reload(false);
        return published.get(kid);
      }
      return undefined;
    },
    jwksJson: () => jwks,
    refresh: () => reload(true),
    start() {
      timer = setInterval(() => {
        reload(true).catch((err: unknown) => logger.warn({ err }, 'signing key refresh failed; keeping the current keys'));
      }, refreshInterval * 1000);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
