/**
 * The two bearer tokens of dynamic registration, kept in the store like every handle: only
 * their hash (`hashKey`). The initial access token (RFC 7591 §3) is made by the operator with
 * `svc clients registration-token` and may register as many clients as its quota (`maxUses`)
 * until it expires; a registration access token (RFC 7592 §3) is made per registered client,
 * opens its configuration endpoint, is replaced on every `PUT` and expires
 * (`registration.registrationAccessTokenLifetime`).
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../sdk/contracts.js';
import type { Store } from '../../store/store.js';

const INITIAL = 'registration_initial_token';
const ACCESS = 'registration_access_token';
const OPERATOR = '(operator)';
/** Compare-and-set rounds before a use is given up under contention (as `throttling/failed-attempts.ts`). */
const ROUNDS = 8;

const newToken = (): string => randomBytes(32).toString('base64url');

/** An initial access token's data. Tokens made before quotas have none: they register until they expire. */
interface InitialData {
  readonly maxUses?: number;
  readonly uses?: number;
}

function initialData(text: string): InitialData {
  try {
    const data = JSON.parse(text) as unknown;
    return typeof data === 'object' && data !== null ? (data as InitialData) : {};
  } catch {
    return {};
  }
}

export function createRegistrationTokens({ store, clock }: { store: Store; clock: Clock }) {
  /** Adds `step` (1 or -1) to the token's uses within its quota; false when it cannot. */
  async function countUse(token: string, step: 1 | -1): Promise<boolean> {
    for (let round = 0; round < ROUNDS; round++) {
      const record = await store.get(token);
      if (record === undefined || record.type !== INITIAL || record.expiresAt <= clock.now()) return false;
      const data = initialData(record.data);
      if (data.maxUses === undefined) return true;
      const uses = (data.uses ?? 0) + step;
      if (uses > data.maxUses || uses < 0) return false;
      if (await store.update(token, { data: JSON.stringify({ ...data, uses }), expectedData: record.data })) return true;
    }
    return false;
  }

  async function issueAccess(clientId: string, lifetimeSeconds: number): Promise<string> {
    const token = newToken();
    const now = clock.now();
    await store.add({ key: token, type: ACCESS, clientId, subjectId: undefined, sessionId: undefined, createdAt: now, expiresAt: now + lifetimeSeconds * 1000, consumedAt: undefined, data: '{}' });
    return token;
  }

  return {
    async issueInitial(lifetimeSeconds: number, maxUses: number): Promise<{ token: string; expiresAt: number }> {
      const token = newToken();
      const now = clock.now();
      const expiresAt = now + lifetimeSeconds * 1000;
      await store.add({ key: token, type: INITIAL, clientId: OPERATOR, subjectId: undefined, sessionId: undefined, createdAt: now, expiresAt, consumedAt: undefined, data: JSON.stringify({ maxUses, uses: 0 }) });
      return { token, expiresAt };
    },
    /** An initial access token that may still register a client (live, and uses left). */
    async isInitial(token: string): Promise<boolean> {
      const record = await store.get(token);
      if (record === undefined || record.type !== INITIAL || record.expiresAt <= clock.now()) return false;
      const { maxUses, uses = 0 } = initialData(record.data);
      return maxUses === undefined || uses < maxUses;
    },
    /** Takes one use of the token's quota, atomically across nodes; false when none is left. */
    takeInitialUse: (token: string): Promise<boolean> => countUse(token, 1),
    /** Gives a use back, when the registration it was taken for failed. */
    async returnInitialUse(token: string): Promise<void> {
      await countUse(token, -1);
    },
    issueAccess,
    /** The client the registration access token opens, if it is one. */
    async accessFor(token: string): Promise<string | undefined> {
      const record = await store.get(token);
      return record !== undefined && record.type === ACCESS && record.expiresAt > clock.now() ? record.clientId : undefined;
    },
    /** RFC 7592 §3: a new registration access token for the client; the one it replaces stops working. */
    async rotateAccess(previous: string, clientId: string, lifetimeSeconds: number): Promise<string> {
      const token = await issueAccess(clientId, lifetimeSeconds);
      await store.remove(previous);
      return token;
    },
    async removeAccess(clientId: string): Promise<void> {
      await store.removeAll({ clientId, type: ACCESS });
    },
  };
}

export type RegistrationTokens = ReturnType<typeof createRegistrationTokens>;
