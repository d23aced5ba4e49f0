/**
 * The two bearer tokens of dynamic registration, kept in the store like every handle: only
 * their hash (`hashKey`). The initial access token (RFC 7591 §3) is made by the operator with
 * `svc clients registration-token` and may register clients until it expires; a registration
 * access token (RFC 7592 §3) is made per registered client and opens its configuration endpoint.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';

const INITIAL = 'registration_initial_token';
const ACCESS = 'registration_access_token';
/** A registration access token lives as long as its client; ten years stands for "until removed". */
const ACCESS_LIFETIME_MS = 10 * 365 * 86_400_000;
const OPERATOR = '(operator)';

const newToken = (): string => randomBytes(32).toString('base64url');

export function createRegistrationTokens({ store, clock }: { store: Store; clock: Clock }) {
  return {
    async issueInitial(lifetimeSeconds: number): Promise<{ token: string; expiresAt: number }> {
      const token = newToken();
      const now = clock.now();
      const expiresAt = now + lifetimeSeconds * 1000;
      await store.add({ key: token, type: INITIAL, clientId: OPERATOR, subjectId: undefined, sessionId: undefined, createdAt: now, expiresAt, consumedAt: undefined, data: '{}' });
      return { token, expiresAt };
    },
    async isInitial(token: string): Promise<boolean> {
      const record = await store.get(token);
      return record !== undefined && record.type === INITIAL && record.expiresAt > clock.now();
    },
    async issueAccess(clientId: string): Promise<string> {
      const token = newToken();
      const now = clock.now();
      await store.add({ key: token, type: ACCESS, clientId, subjectId: undefined, sessionId: undefined, createdAt: now, expiresAt: now + ACCESS_LIFETIME_MS, consumedAt: undefined, data: '{}' });
      return token;
    },
    /** The client the registration access token opens, if it is one. */
    async accessFor(token: string): Promise<string | undefined> {
      const record = await store.get(token);
      return record !== undefined && record.type === ACCESS && record.expiresAt > clock.now() ? record.clientId : undefined;
    },
    async removeAccess(clientId: string): Promise<void> {
      await store.removeAll({ clientId, type: ACCESS });
    },
  };
}

export type RegistrationTokens = ReturnType<typeof createRegistrationTokens>;
