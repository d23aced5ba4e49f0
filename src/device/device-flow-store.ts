/**
 * The device flow's records in the store (RFC 8628). Two records per flow:
 *
 * - `user_code`, keyed by the normalized user code: the flow itself (client, scopes, status,
 *   who approved). The verification page finds it from what the user types.
 * - `device_code`, keyed by the device code: only the polling state (the digest of the user
 *   code that leads to the flow, the enforced interval, the last poll).
 *
 * Neither code is stored in plain: each appears only in a hashed key, and the device record
 * holds the user code's SHA-256, which is all the lookup needs. (User codes are short, so a
 * digest could be guessed offline; a user code only leads to the page, never to tokens.)
 *
 * Every change is a compare-and-set on the record's data, so approval, denial, polling and
 * redemption stay consistent across nodes sharing a store.
 */
import { hash, randomBytes } from 'node:crypto';
import type { Clock } from '../sdk/contracts.js';
import { DuplicateKeyError, type Store } from '../store/store.js';
import { newHandle } from '../oauth/handles.js';
import type { UserCodeScheme } from './user-code.js';

export type FlowStatus = 'pending' | 'approved' | 'denied';

/** The `user_code` record's data. */
export interface DeviceFlow {
  /** Ties the two records together, so a user code reissued after expiry never answers an old device code. */
  readonly flowId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  /** RFC 8707: the APIs the device named with `resource` (audience identifiers); none, every API of the scopes. */
  readonly resources?: readonly string[];
  readonly status: FlowStatus;
  /** Set on approval. */
  readonly subject?: string;
  readonly authTime?: number;
  /** Issue 35: the approving session's RFC 8176 methods. */
  readonly amr?: readonly string[];
  /** Issue 34: the upstream identity provider the approving session signed in at. */
  readonly idp?: string;
  /** Epoch ms when the codes expire (RFC 8628 §3.2 `expires_in`). */
  readonly expiresAt: number;
}

/** The `device_code` record's data. */
export interface DeviceCodeState {
  readonly flowId: string;
  /** SHA-256 of the normalized user code: finds the flow (see `getFlowOf`), never the code itself. */
  readonly userCodeDigest: string;
  readonly expiresAt: number;
  /** Seconds the client must wait between polls; grows on `slow_down` (RFC 8628 §3.5). */
  readonly interval: number;
  /** Epoch ms of the last poll; absent before the first. */
  readonly lastPolledAt?: number;
}

/** A record's value and the exact data text it was read from, for compare-and-set. */
export interface Versioned<T> {
  readonly value: T;
  readonly version: string;
}

export interface StartedFlow {
  readonly deviceCode: string;
  /** Normalized. */
  readonly userCode: string;
  readonly expiresAt: number;
}

export interface DeviceFlowStore {
  start(input: {
    clientId: string;
    scopes: readonly string[];
    resources?: readonly string[];
    lifetimeSeconds: number;
    intervalSeconds: number;
    userCodes: UserCodeScheme;
  }): Promise<StartedFlow>;
  /** The flow behind a normalized user code, even when expired (until swept). */
  getFlow(userCode: string): Promise<Versioned<DeviceFlow> | undefined>;
  /** The flow a device code's polling state leads to. */
  getFlowOf(state: DeviceCodeState): Promise<Versioned<DeviceFlow> | undefined>;
  /** Replaces the flow if it is unchanged since `previous` was read; false when someone else changed it first. */
  setFlow(userCode: string, previous: Versioned<DeviceFlow>, next: DeviceFlow): Promise<boolean>;
  /** `redeemedAt`: epoch ms of the one redemption (RFC 8628 §3.5), which the token endpoint makes with `consumes`. */
  getDeviceCode(deviceCode: string): Promise<{ clientId: string; redeemedAt: number | undefined; state: Versioned<DeviceCodeState> } | undefined>;
  setDeviceCode(deviceCode: string, previous: Versioned<DeviceCodeState>, next: DeviceCodeState): Promise<boolean>;
}

export const deviceCodeRecord = 'device_code';
export const userCodeRecord = 'user_code';
const userCodeDigest = (userCode: string): string => hash('sha256', userCode, 'base64url');
const flowKey = (digest: string): string => `user_code:${digest}`;
const userCodeKey = (userCode: string): string => flowKey(userCodeDigest(userCode));

/**
 * The device record outlives the codes by this much, so a late poll still hears `expired_token`
 * (RFC 8628 §3.5) rather than `invalid_grant`. The user code is free for reuse at expiry.
 */
const expiredTokenGrace = 10 * 60_000;
/** A collision among live codes is rare (2^-34 per live code); a few retries make failure negligible. */
const userCodeAttempts = 10;

export function createDeviceFlowStore({ store, clock }: { store: Store; clock: Clock }): DeviceFlowStore {
  const read = <T>(data: string): Versioned<T> => ({ value: JSON.parse(data) as T, version: data });

  async function readFlow(key: string): Promise<Versioned<DeviceFlow> | undefined> {
    const record = await store.get(key);
    return record?.type === userCodeRecord ? read<DeviceFlow>(record.data) : undefined;
  }

  async function addUserCode(flow: DeviceFlow, userCodes: UserCodeScheme, now: number): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const userCode = userCodes.generate();
      try {
        await store.add({
          key: userCodeKey(userCode), type: userCodeRecord, clientId: flow.clientId, subjectId: undefined,
          sessionId: flow.flowId, createdAt: now, expiresAt: flow.expiresAt, consumedAt: undefined, data: JSON.stringify(flow),
        });
        return userCode;
      } catch (err) {
        // User codes must be unique among live codes (RFC 8628 §6.1).
        if (!(err instanceof DuplicateKeyError) || attempt >= userCodeAttempts) throw err;
      }
    }
  }

  return {
    async start({ clientId, scopes, resources, lifetimeSeconds, intervalSeconds, userCodes }) {
      const now = clock.now();
      const expiresAt = now + lifetimeSeconds * 1000;
      const flowId = randomBytes(16).toString('base64url');
      const userCode = await addUserCode({ flowId, clientId, scopes, ...(resources === undefined ? {} : { resources }), status: 'pending', expiresAt }, userCodes, now);
      const deviceCode = newHandle();
      const state: DeviceCodeState = { flowId, userCodeDigest: userCodeDigest(userCode), expiresAt, interval: intervalSeconds };
      await store.add({
        key: deviceCode, type: deviceCodeRecord, clientId, subjectId: undefined, sessionId: flowId,
        createdAt: now, expiresAt: expiresAt + expiredTokenGrace, consumedAt: undefined, data: JSON.stringify(state),
      });
      return { deviceCode, userCode, expiresAt };
    },

    async getFlow(userCode) {
      return readFlow(userCodeKey(userCode));
    },

    async getFlowOf(state) {
      return readFlow(flowKey(state.userCodeDigest));
    },

    async setFlow(userCode, previous, next) {
      const data = JSON.stringify(next);
      return store.update(userCodeKey(userCode), { data, expectedData: previous.version, ...(next.subject ? { subjectId: next.subject } : {}) });
    },

    async getDeviceCode(deviceCode) {
      const record = await store.get(deviceCode);
      if (record?.type !== deviceCodeRecord) return undefined;
      return { clientId: record.clientId, redeemedAt: record.consumedAt, state: read<DeviceCodeState>(record.data) };
    },

    async setDeviceCode(deviceCode, previous, next) {
      return store.update(deviceCode, { data: JSON.stringify(next), expectedData: previous.version });
    },
  };
}
