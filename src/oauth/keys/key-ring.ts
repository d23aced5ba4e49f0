/**
 * The signing keys every node shares. Managed keys live in the store; configured keys (PEM or
 * JWK files, environment variables) take precedence for their algorithm. Keys are imported
 * once; the hot path only reads the in-memory set.
 *
 * Rotation (Duende's automatic key management, one lease per new key across nodes) is
 * `key-rotation.ts`; what a key is, `signing-key.ts`. This module keeps the in-memory set the
 * hot path reads and reloads it.
 */
import type { Clock, Logger } from '../../sdk/contracts.js';
import { BootError } from '../../config/boot-error.js';
import { isLoopbackHost } from '../../config/redirect-uri-rules.js';
import type { ResolvedConfig, SigningAlgorithm } from '../../config/schema.js';
import { StoreUnavailableError, type SigningKeyRecord, type Store } from '../../store/store.js';
import { loadConfiguredKeys } from './configured-keys.js';
import { createKeyProtector, type KeyProtector } from './key-protection.js';
import { createKeyRotation, newestActive } from './key-rotation.js';
import { signingKeyFromRecord, signingOnThreads, type SigningKey } from './signing-key.js';
import { createSigningThreads } from './signing-threads.js';

export type { SigningKey };

export interface KeyRingDeps {
  config: Pick<ResolvedConfig, 'clients' | 'issuer' | 'signing' | 'store'>;
  store: Store;
  clock: Clock;
  logger: Logger;
  /** How long a node that lost the race to create a key waits for the winner's key (real time). Default 5000. */
  keyWaitMs?: number;
  /** The key-encryption keys, when the caller has read them already; otherwise read from `config`. */
  protector?: KeyProtector;
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
  /** Stops the signing threads (`signing.threads`), once no request needs a signature any more. */
  close(): Promise<void>;
}

/** Skew allowed on token lifetimes (as in validation) plus slack. */
const retentionSlackMs = 300_000;

/** The algorithms whose keys the service creates and rotates itself: those no configured key covers. */
function managedAlgsOf(algorithms: readonly string[], configured: readonly SigningKey[]): string[] {
  const configuredAlgs = new Set(configured.map((k) => k.alg));
  return algorithms.filter((a) => !configuredAlgs.has(a));
}

export async function createKeyRing({ config, store, clock, logger, keyWaitMs = 5000, protector = createKeyProtector(config.signing.keyEncryptionKeys) }: KeyRingDeps): Promise<KeyRing> {
  const algorithms = [...new Set<SigningAlgorithm>([config.signing.accessTokenAlgorithm, ...config.signing.idTokenAlgorithms])];
  const threads = config.signing.threads > 0 ? createSigningThreads({ threads: config.signing.threads, logger }) : undefined;
  const onThreads = (key: SigningKey): SigningKey => (threads ? signingOnThreads(key, threads) : key);
  const configured = (await loadConfiguredKeys(config.signing.keys)).map(onThreads);
  const configuredAlgs = new Set(configured.map((k) => k.alg));
  const managedAlgs = managedAlgsOf(algorithms, configured);
  // A store that outlives the process, reachable from beyond this machine (the issuer is not on
  // loopback): a copy of it would sign tokens. A loopback-only development setup is left quiet.
  if (!protector.enabled && managedAlgs.length > 0 && config.store !== 'memory' && !isLoopbackHost(new URL(config.issuer).hostname)) {
    logger.warn({ store: config.store.split(':')[0] }, 'signing keys are stored unencrypted: set signing.keyEncryptionKeys (see docs/guides/operations.md, "Signing keys")');
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
      key = onThreads(await signingKeyFromRecord(record, protector));
      imported.set(record.kid, key);
    }
    return key;
  }

  const rotate = createKeyRotation({ store, clock, logger, protector, rotationInterval, propagationTime, retentionMs, keyWaitMs });

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
      for (const alg of managedAlgs) {
        const result = await rotate(alg, records.filter((r) => r.alg === alg), now);
        for (const kid of result.removed) {
          imported.delete(kid);
          threads?.forget(kid);
        }
        changed = result.changed || changed;
      }
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
    await threads?.close();
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
    close: async () => threads?.close(),
  };
}
