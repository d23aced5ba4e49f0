/**
 * The device flow's records in the store (RFC 8628). Two records per flow:
 *
 * - `user_code`, keyed by the normalized user code: the flow itself (client, scopes, status,
 *   who approved). The verification page finds it from what the user types.
 * - `device_code`, keyed by the device code: only the polling state (the user code that leads
 *   to the flow, the enforced interval, the last poll).
 *
 * The device code appears nowhere but in its own (hashed) key, so a copy of the database yields
 * no device code to redeem. The user code in the device record gives nothing more: user codes
 * are short, so their hashed keys could be guessed offline anyway, and a user code only leads
 * to the page, never to tokens.
 *
 * Every change is a compare-and-set on the record's data, so approval, denial, polling and
 * redemption stay consistent across nodes sharing a store.
 */
import { randomBytes } from 'node:crypto';
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
  readonly status: FlowStatus;
  /** Set on approval. */
  readonly subject?: string;
  readonly authTime?: number;
  /** Epoch ms when the codes expire (RFC 8628 §3.2 `expires_in`). */
  readonly expiresAt: number;
}

/** The `device_code` record's data. */
export interface DeviceCodeState {
  readonly flowId: string;
  /** Normalized. */
  readonly userCode: string;
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
    lifetimeSeconds: number;
    intervalSeconds: number;
    userCodes: UserCodeScheme;
  }): Promise<StartedFlow>;
  /** The flow behind a normalized user code, even when expired (until swept). */
  getFlow(userCode: string): Promise<Versioned<DeviceFlow> | undefined>;
  /** Replaces the flow if it is unchanged since `previous` was read; false when someone else changed it first. */
  setFlow(userCode: string, previous: Versioned<DeviceFlow>, next: DeviceFlow): Promise<boolean>;
  getDeviceCode(deviceCode: string): Promise<{ clientId: string; redeemed: boolean; state: Versioned<DeviceCodeState> } | undefined>;
  setDeviceCode(deviceCode: string, previous: Versioned<DeviceCodeState>, next: DeviceCodeState): Promise<boolean>;
  /** Marks the device code used; true only for the one caller that won (RFC 8628 §3.5: one redemption). */
  redeem(deviceCode: string): Promise<boolean>;
}

export const deviceCodeRecord = 'device_code';
export const userCodeRecord = 'user_code';
const userCodeKey = (userCode: string): string => `user_code:${userCode}`;

/**
 * The device record outlives the codes by this much, so a late poll still hears `expired_token`
 * (RFC 8628 §3.5) rather than `invalid_grant`. The user code is free for reuse at expiry.
 */
const expiredTokenGrace = 10 * 60_000;
/** A collision among live codes is rare (2^-34 per live code); a few retries make failure negligible. */
const userCodeAttempts = 10;

export function createDeviceFlowStore({ store, clock }: { store: Store; clock: Clock }): DeviceFlowStore {
  const read = <T>(data: string): Versioned<T> => ({ value: JSON.parse(data) as T, version: data });

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
    async start({ clientId, scopes, lifetimeSeconds, intervalSeconds, userCodes }) {
      const now = clock.now();
      const expiresAt = now + lifetimeSeconds * 1000;
      const flowId = randomBytes(16).toString('base64url');
      const userCode = await addUserCode({ flowId, clientId, scopes, status: 'pending', expiresAt }, userCodes, now);
      const deviceCode = newHandle();
      const state: DeviceCodeState = { flowId, userCode, expiresAt, interval: intervalSeconds };
      await store.add({
        key: deviceCode, type: deviceCodeRecord, clientId, subjectId: undefined, sessionId: flowId,
        createdAt: now, expiresAt: expiresAt + expiredTokenGrace, consumedAt: undefined, data: JSON.stringify(state),
      });
      return { deviceCode, userCode, expiresAt };
    },

    async getFlow(userCode) {
      const record = await store.get(userCodeKey(userCode));
      return record?.type === userCodeRecord ? read<DeviceFlow>(record.data) : undefined;
    },

    async setFlow(userCode, previous, next) {
      const data = JSON.stringify(next);
      return store.update(userCodeKey(userCode), { data, expectedData: previous.version, ...(next.subject ? { subjectId: next.subject } : {}) });
    },

    async getDeviceCode(deviceCode) {
      const record = await store.get(deviceCode);
      if (record?.type !== deviceCodeRecord) return undefined;
      return { clientId: record.clientId, redeemed: record.consumedAt !== undefined, state: read<DeviceCodeState>(record.data) };
    },

    async setDeviceCode(deviceCode, previous, next) {
      return store.update(deviceCode, { data: JSON.stringify(next), expectedData: previous.version });
    },

    async redeem(deviceCode) {
      return (await store.consume(deviceCode, clock.now())) !== undefined;
    },
  };
}
