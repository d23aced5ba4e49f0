/**
 * RFC 6749 §4.1.3, the authorization code grant, with PKCE (RFC 7636 §4.6) as RFC 9700 §2.1.1
 * asks: the code must be this client's, `redirect_uri` must equal the one the code was issued
 * for, and `code_verifier` must hash to its challenge (a code issued without a challenge takes
 * no verifier: a PKCE downgrade is refused).
 *
 * A code issued for a request with `dpop_jkt` (RFC 9449 §10) takes a DPoP proof of that key.
 *
 * Like the device code, a good code does not spend itself: it answers with `consumes`, and the
 * token endpoint spends it in the transaction that stores the tokens, atomically across nodes.
 * A code presented again revokes the tokens of its first redemption (RFC 6749 §4.1.2).
 * `code.redeemed` is raised by `redeemed`, which the token endpoint calls only for the request
 * whose commit won.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  InvalidGrant, InvalidRequest,
  type Clock, type ExtensionGrantValidator, type Logger, type OAuthError, type ValidatedTokenRequest,
} from '../sdk/index.js';
import type { Store } from '../store/store.js';
import type { EventService } from '../events/event-service.js';
import { createAuthorizationCodes } from '../authorize/authorization-codes.js';
import { revokeFamily, type SpendsFamily } from '../oauth/grant-family.js';
import { noResources, type ResourceCatalog } from '../oauth/resources.js';

export const authorizationCodeGrantType = 'authorization_code';

const invalidCode = (): OAuthError => new InvalidGrant('The authorization code is invalid or expired.');
/** RFC 7636 §4.1: 43 to 128 characters of the unreserved set. */
const verifierShape = /^[A-Za-z0-9._~-]{43,128}$/;

export function createAuthorizationCodeGrant({ store, clock, logger, events, resources = noResources }: { store: Store; clock: Clock; logger: Logger; events?: EventService; resources?: ResourceCatalog }): ExtensionGrantValidator {
  const codes = createAuthorizationCodes({ store, clock });

  // The family the code's record names: its tokens joined that one, whichever node issued them.
  async function redeemedAgain(family: string, request: ValidatedTokenRequest): Promise<OAuthError> {
    const revoked = await revokeFamily(store, family);
    logger.warn({ clientId: request.client.clientId, revoked }, 'authorization code redeemed again; the tokens of its first redemption revoked');
    return invalidCode();
  }

  async function redeem(code: string, request: ValidatedTokenRequest): Promise<SpendsFamily> {
    const found = await codes.find(code);
    // RFC 9700 §4.5 (code injection): a code is good only for the client it was issued to.
    if (!found || found.clientId !== request.client.clientId) throw invalidCode();
    if (found.consumedAt !== undefined) throw await redeemedAgain(found.family, request);
    if (found.expiresAt <= clock.now()) throw invalidCode();
    const { grant } = found;
    const redirectUri = request.raw.get('redirect_uri');
    if (redirectUri === undefined) throw new InvalidRequest('The redirect_uri parameter is required.');
    if (redirectUri !== grant.redirectUri) throw new InvalidGrant('The redirect_uri does not match the authorization request.');
    const verifier = request.raw.get('code_verifier');
    if (grant.codeChallenge === undefined) {
      if (verifier !== undefined) throw new InvalidGrant('The code was issued without a code_challenge.');
    } else {
      if (verifier === undefined) throw new InvalidRequest('The code_verifier parameter is required.');
      if (!verifierShape.test(verifier) || !matchesChallenge(verifier, grant.codeChallenge)) {
        throw new InvalidGrant('The code_verifier does not match the code_challenge.');
      }
    }
    // RFC 9449 §10 and §11.9: a code bound to a DPoP key is redeemed only with a proof of that
    // key, so a code taken from a log or a redirect is of no use to anyone else. The code is not
    // spent by the refusal: the client holding the key can still redeem it.
    if (grant.dpopJkt !== undefined && request.dpop?.jkt !== grant.dpopJkt) {
      throw new InvalidGrant('The authorization code is bound to a DPoP key: redeem it with a DPoP proof made with that key.', {
        logDetail: request.dpop === undefined ? 'code bound to a DPoP key (dpop_jkt); no DPoP proof' : 'code bound to a DPoP key (dpop_jkt) other than the proof key',
      });
    }
    return {
      subject: { kind: 'user', id: found.subject, authTime: grant.authTime, ...(grant.amr ? { amr: grant.amr } : {}), ...(grant.acr ? { acr: grant.acr } : {}), ...(grant.idp ? { idp: grant.idp } : {}) },
      scopes: grant.scopes,
      // RFC 8707 §2.2: a code granted for several APIs may be redeemed for some of them; its
      // refresh token keeps them all.
      ...(grant.resources === undefined ? {} : { audience: resources.within(grant.resources, request.resources)!, grantedAudience: grant.resources }),
      consumes: code,
      consumesFamily: found.family,
      idToken: { nonce: grant.nonce, sid: grant.sid },
    };
  }

  return {
    grantType: authorizationCodeGrantType,
    // The grant reads all three, so none is a `credential`. The verifier is redacted from logs
    // (`secret`); `code` is not, because every error's code is a `code` field in a log line, and
    // no line is given the parameter. Caps stay the default's: a too-long verifier still fails
    // as not matching its challenge.
    parameters: [
      { name: 'code', maxLength: 2048 },
      { name: 'code_verifier', maxLength: 2048, secret: true },
      { name: 'redirect_uri', maxLength: 2048 },
    ],
    async validate(ctx) {
      const code = ctx.request.raw.get('code');
      if (code === undefined) throw new InvalidRequest('The code parameter is required.');
      ctx.result = await redeem(code, ctx.request);
    },
    // Raised here, after the commit, not in `validate`: a request that loses the race for the
    // code redeemed nothing.
    redeemed(success, request) {
      events?.raise({ type: 'code.redeemed', clientId: request.client.clientId, subject: success.subject.id });
    },
    async spent(code, request) {
      const found = await codes.find(code);
      if (!found || found.clientId !== request.client.clientId || found.consumedAt === undefined) return invalidCode();
      return redeemedAgain(found.family, request);
    },
  };
}

function matchesChallenge(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
