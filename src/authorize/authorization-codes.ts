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
import { familyOfSpentGrant, timeOrderedFamilies, type FamilyFormat } from '../oauth/grant-family.js';

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
  /**
   * The family of the tokens the code yields, as its record says: the node that issued it chose
   * the format (a node of the previous release, or one before the contract, the plain one), and
   * the sign-in session listed this id for sign-out.
   */
  readonly family: string;
}

export interface AuthorizationCodes {
  /** The new code, and the family of the tokens it will yield. */
  issue(request: { clientId: string; subject: string; lifetimeSeconds: number; grant: CodeGrant }): Promise<{ code: string; family: string }>;
  find(code: string): Promise<StoredCode | undefined>;
}

/** `families`: the format this node writes (`familyFormatOf`, src/oauth/grant-family.ts); time-ordered when left out (a memory store's). */
export function createAuthorizationCodes({ store, clock, families = timeOrderedFamilies }: { store: Store; clock: Clock; families?: FamilyFormat }): AuthorizationCodes {
  return {
    async issue({ clientId, subject, lifetimeSeconds, grant }) {
      const code = newHandle();
      const now = clock.now();
      const family = familyOfSpentGrant(code, families.timeOrdered);
      const record: PersistedGrant = {
        // In its tokens' family: revoking the family (sign-out) also spends a code not yet redeemed.
        key: code, type: authorizationCodeType, clientId, subjectId: subject, sessionId: family,
        createdAt: now, expiresAt: now + lifetimeSeconds * 1000, consumedAt: undefined, data: JSON.stringify(grant),
      };
      await store.add(record);
      return { code, family };
    },
    async find(code) {
      const record = await store.get(code);
      if (!record || record.type !== authorizationCodeType || record.subjectId === undefined) return undefined;
      return {
        clientId: record.clientId, subject: record.subjectId, grant: JSON.parse(record.data) as CodeGrant,
        expiresAt: record.expiresAt, consumedAt: record.consumedAt,
        // Every release has written it; the digest is what one without it would have meant.
        family: record.sessionId ?? familyOfSpentGrant(code, false),
      };
    },
  };
}
