/**
 * Authorization codes (RFC 6749 §4.1.2): 256 random bits, stored hashed (the store keeps only
 * the key's digest), short-lived, and bound to everything the token request must match: the
 * client, the redirect URI, the PKCE challenge, the scopes, the nonce, the sign-in session and,
 * when the request named one, the client's DPoP key.
 * Redemption is the token endpoint's atomic consume (`GrantSuccess.consumes`).
 */
import type { Clock } from '../sdk/contracts.js';
import type { PersistedGrant, Store } from '../store/store.js';
import { newHandle } from '../oauth/handles.js';
import { familyOfSpentGrant } from '../oauth/grant-family.js';

export const authorizationCodeType = 'authorization_code';

export interface CodeGrant {
  readonly redirectUri: string;
  readonly codeChallenge: string | undefined;
  readonly scopes: readonly string[];
  readonly nonce: string | undefined;
  /** The sign-in session's public id (the ID token's `sid`). */
  readonly sid: string;
  readonly authTime: number;
  /** Issue 35: the sign-in's RFC 8176 methods and the `acr` its tokens report. */
  readonly amr?: readonly string[];
  readonly acr?: string;
  /** Issue 34: the upstream identity provider of the sign-in (the tokens' `idp`). */
  readonly idp?: string;
  /** RFC 9449 §10: the thumbprint of the DPoP key the code may be redeemed with; none, any. */
  readonly dpopJkt?: string;
  /** RFC 8707: the APIs the request named with `resource` (audience identifiers); none, every API of the scopes. */
  readonly resources?: readonly string[];
}

export interface StoredCode {
  readonly clientId: string;
  readonly subject: string;
  readonly grant: CodeGrant;
  readonly expiresAt: number;
  readonly consumedAt: number | undefined;
}

export interface AuthorizationCodes {
  issue(request: { clientId: string; subject: string; lifetimeSeconds: number; grant: CodeGrant }): Promise<string>;
  find(code: string): Promise<StoredCode | undefined>;
}

export function createAuthorizationCodes({ store, clock }: { store: Store; clock: Clock }): AuthorizationCodes {
  return {
    async issue({ clientId, subject, lifetimeSeconds, grant }) {
      const code = newHandle();
      const now = clock.now();
      const record: PersistedGrant = {
        // In its tokens' family: revoking the family (sign-out) also spends a code not yet redeemed.
        key: code, type: authorizationCodeType, clientId, subjectId: subject, sessionId: familyOfSpentGrant(code),
        createdAt: now, expiresAt: now + lifetimeSeconds * 1000, consumedAt: undefined, data: JSON.stringify(grant),
      };
      await store.add(record);
      return code;
    },
    async find(code) {
      const record = await store.get(code);
      if (!record || record.type !== authorizationCodeType || record.subjectId === undefined) return undefined;
      return {
        clientId: record.clientId, subject: record.subjectId, grant: JSON.parse(record.data) as CodeGrant,
        expiresAt: record.expiresAt, consumedAt: record.consumedAt,
      };
    },
  };
}
