/**
 * Validates a `jwt-bearer` client assertion (RFC 7523 §3, RFC 10070) against the holder's
 * `X509CertificateBase64` and `JsonWebKey` secrets. The steps run in this order, and the
 * single-use `jti` is recorded last, so a forged or stale assertion cannot burn a `jti`.
 */
import {
  isDuplicateKeyError,
  MalformedJws,
  timeOrderedKey,
  type AssertionAudienceForm,
  type CompactJws,
  type PluginDependencies,
  type SecretHolder,
  type SecretValidationContext,
  type SecretValidationResult,
  type SecretValidator,
} from 'svc/sdk';
import type { SupportedAlgorithm } from './algorithms.js';
import { FAPI2_ALGORITHMS, underFapi2 } from './fapi2.js';
import { decodedAssertion } from './assertion-parser.js';
import { audienceForm, audienceRule, checkAudienceProperties } from './audience.js';
import { checkClaims } from './claims.js';
import { ClientKeys, KEY_SECRET_TYPES } from './client-keys.js';
import { JWT_BEARER } from './constants.js';
import type { PrivateKeyJwtOptions } from './options.js';
import { selectKeys, verifiedClaims } from './key-selection.js';
import { AssertionRejected, reject, show } from './rejection.js';
import { CLIENT_AUTHENTICATION_TYP, isClientAuthenticationTyp } from './typ.js';

interface AssertionHeader {
  readonly alg: SupportedAlgorithm;
  readonly kid: string | undefined;
  readonly typ: string | undefined;
}


function decode(parsed: SecretValidationContext['parsed']): CompactJws {
  try {
    return decodedAssertion(parsed);
  } catch (error) {
    if (error instanceof MalformedJws) reject(`malformed assertion: ${error.message}`);
    throw error;
  }
}

function readHeader({ header }: CompactJws, allowed: readonly SupportedAlgorithm[]): AssertionHeader {
  const { alg, kid, typ } = header;
  if (!(allowed as readonly unknown[]).includes(alg)) reject(`alg ${show(alg)} is not allowed`);
  if (kid !== undefined && typeof kid !== 'string') reject(`kid is not a string: ${show(kid)}`);
  if (typ !== undefined && typeof typ !== 'string') reject(`typ is not a string: ${show(typ)}`);
  if (!isClientAuthenticationTyp(typ)) {
    reject(`typ ${show(typ)} is not a client authentication type (absent, JWT or ${CLIENT_AUTHENTICATION_TYP}; RFC 8725 §3.11)`);
  }
  return { alg: alg as SupportedAlgorithm, kid, typ };
}

/**
 * RFC 7523 §3 item 7: an assertion is accepted once, until it expires. The record is the client,
 * the `jti` and the `exp`: a replay is the same signed JWT, so it carries the same three and is
 * refused. `exp` goes in front as a time (`timeOrderedKey`), which keeps these inserts, one per
 * request, together in the store's index rather than each on a random page; the price is that an
 * assertion the client itself signed with a used `jti` and another `exp` is a new record, which
 * only the holder of the client's key can make (this plugin's README, check 9).
 */
async function consumeJti(store: PluginDependencies['store'], holderId: string, jti: string, exp: number, nowMs: number, clockSkew: number): Promise<void> {
  try {
    await store.add({
      key: timeOrderedKey(exp * 1000, `jti:${holderId}:${jti}`),
      type: 'assertion_jti',
      clientId: holderId,
      subjectId: undefined,
      sessionId: undefined,
      createdAt: nowMs,
      expiresAt: Math.ceil((exp + clockSkew) * 1000),
      consumedAt: undefined,
      data: '{}',
    });
  } catch (error) {
    // Anything else (store down) propagates.
    if (isDuplicateKeyError(error)) reject(`jti ${show(jti)} was already used (replay)`);
    throw error;
  }
}

function holderIdOf(holder: SecretHolder): string {
  return holder.kind === 'client' ? holder.client.clientId : holder.apiResource.name;
}

/**
 * Parses the options and every key secret of every client and API resource now: a bad one stops
 * start-up with an Error naming it. Requests then do one signature check and one store write.
 */
export function createAssertionValidator(
  deps: Pick<PluginDependencies<PrivateKeyJwtOptions>, 'config' | 'urls' | 'clock' | 'store' | 'options'>,
): SecretValidator {
  const { urls, clock, store } = deps;
  const { algorithms, audience, clockSkew, maxLifetime } = deps.options;
  checkAudienceProperties(deps.config.clients);
  const clientKeys = ClientKeys.forConfig(deps.config);

  /** `seen` receives the audience form as soon as the signature verified, for the result whatever follows. */
  async function check({ parsed, secrets, holder, endpoint }: SecretValidationContext, seen: { assertionAudience?: AssertionAudienceForm }): Promise<void> {
    const nowMs = clock.now();
    const holderId = holderIdOf(holder);
    if (parsed.type !== JWT_BEARER) reject(`parsed secret type ${show(parsed.type)} is not ${JWT_BEARER}`);

    const jws = decode(parsed);
    const header = readHeader(jws, algorithms);
    if (holder.kind === 'client' && underFapi2(holder.client) && !FAPI2_ALGORITHMS.includes(header.alg)) {
      reject(`alg ${show(header.alg)} is not allowed under FAPI 2.0 (${FAPI2_ALGORITHMS.join(', ')})`);
    }
    const { keys, unusable } = clientKeys.keysFor(secrets);
    const candidates = selectKeys(keys, unusable, header, nowMs);
    const payload = verifiedClaims(jws, header.alg, candidates);
    // Only after the signature verified: a stranger cannot make the counter name a client it is not.
    if (holder.kind === 'client') seen.assertionAudience = audienceForm(payload.aud, urls);
    const { exp, jti } = checkClaims(payload, {
      holderId,
      audience: audienceRule(header.typ, holder, audience, urls, endpoint),
      now: nowMs / 1000,
      clockSkew,
      maxLifetime,
    });
    await consumeJti(store, holderId, jti, exp, nowMs, clockSkew);
  }

  return {
    parsedSecretTypes: [JWT_BEARER],
    secretTypes: KEY_SECRET_TYPES,
    async validate(context): Promise<SecretValidationResult> {
      const seen: { assertionAudience?: AssertionAudienceForm } = {};
      try {
        await check(context, seen);
        return { success: true, ...seen };
      } catch (error) {
        if (error instanceof AssertionRejected) return { success: false, reason: error.message, ...seen };
        throw error;
      }
    },
  };
}
