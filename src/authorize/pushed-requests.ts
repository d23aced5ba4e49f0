/**
 * Pushed authorization requests (RFC 9126): a validated request kept in the store for 60
 * seconds under a `request_uri`, which the authorization endpoint takes once (an atomic
 * consume, so two nodes cannot both use it) and only for the client that pushed it.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import type { AuthorizationRequest } from './authorization-request.js';

export const requestUriPrefix = 'urn:ietf:params:oauth:request_uri:';
/** RFC 9126 §2.2: short-lived; 60 s is the example and what the issue asks. */
export const pushedRequestLifetime = 60;
const recordType = 'pushed_authorization_request';
const keyOf = (id: string): string => `par:${id}`;

export interface PushedRequests {
  push(request: AuthorizationRequest): Promise<{ requestUri: string; expiresIn: number }>;
  /** The request behind `requestUri` if `clientId` pushed it and it is unused and unexpired; spends it. */
  take(requestUri: string, clientId: string): Promise<AuthorizationRequest | undefined>;
}

export function createPushedRequests({ store, clock }: { store: Store; clock: Clock }): PushedRequests {
  return {
    async push(request) {
      const id = randomBytes(32).toString('base64url');
      const now = clock.now();
      await store.add({
        key: keyOf(id), type: recordType, clientId: request.clientId, subjectId: undefined, sessionId: undefined,
        createdAt: now, expiresAt: now + pushedRequestLifetime * 1000, consumedAt: undefined, data: JSON.stringify(request),
      });
      return { requestUri: requestUriPrefix + id, expiresIn: pushedRequestLifetime };
    },
    async take(requestUri, clientId) {
      if (!requestUri.startsWith(requestUriPrefix)) return undefined;
      const id = requestUri.slice(requestUriPrefix.length);
      if (!/^[\w-]{43}$/.test(id)) return undefined;
      const found = await store.get(keyOf(id));
      if (!found || found.type !== recordType || found.clientId !== clientId) return undefined;
      const spent = await store.consume(keyOf(id), clock.now());
      return spent ? (JSON.parse(spent.data) as AuthorizationRequest) : undefined;
    },
  };
}
