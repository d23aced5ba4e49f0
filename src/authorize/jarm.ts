/**
 * JWT Secured Authorization Response Mode (JARM, OpenID Foundation, final): in `query.jwt` and
 * `form_post.jwt` the response parameters (`code`, `state`, `iss`, or `error`,
 * `error_description`, `state`, `iss`) travel as the claims of one JWT the service signs, in the
 * one parameter `response` (§2.1), for successes and errors alike (§2.2). The client verifies it
 * with the service's JWKS, so nobody between can swap or inject a code.
 *
 * The algorithm is the client's `authorizationSignedResponseAlg` (JARM §3
 * `authorization_signed_response_alg`), RS256 by default as the specification says; the service
 * holds an RS256 key always (`signing.idTokenAlgorithms` must list it).
 */
import type { Client } from '../config/schema.js';
import type { Lookup } from '../clients/client-directory.js';
import type { Clock, Logger } from '../sdk/contracts.js';
import type { KeyRing } from '../oauth/keys/key-ring.js';
import { signToken } from '../oauth/keys/signing-key.js';
import { tracingOff, type Tracing } from '../tracing/tracing.js';
import { deliver, type AuthorizationResponse, type UnsignedJwtResponse } from './authorization-response.js';
import type { FlowOutcome, SentOutcome } from './flow-outcome.js';

/** JARM §2.1: what a client that registered no algorithm gets. */
export const defaultAuthorizationResponseAlgorithm = 'RS256';
/**
 * JARM §2.1 asks for a short `exp`: the JWT goes straight from the browser to the client, so two
 * minutes cover a slow redirect and a clock a little off, and a leaked one is soon worthless.
 */
export const authorizationResponseLifetime = 120;

export interface JarmDeps {
  readonly issuer: string;
  readonly clients: Lookup<Client>;
  readonly keyRing: Pick<KeyRing, 'signingKey' | 'algorithms'>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tracing?: Tracing | undefined;
}

/** Signs a response waiting in a JARM mode; any other outcome passes unchanged. */
export type ResponseSealer = (outcome: FlowOutcome) => Promise<SentOutcome>;

export function createJarm(deps: JarmDeps): ResponseSealer {
  const tracing = deps.tracing ?? tracingOff;

  function algorithmFor(clientId: string): string {
    const wanted = deps.clients.get(clientId)?.authorizationSignedResponseAlg ?? defaultAuthorizationResponseAlgorithm;
    if (deps.keyRing.algorithms.includes(wanted)) return wanted;
    // The config's clients are checked at start-up; a stored client's choice the service cannot sign with falls back to the default.
    deps.logger.warn({ clientId, alg: wanted }, 'JARM: the client\'s authorizationSignedResponseAlg is not a signing algorithm of the service; signing with RS256');
    return defaultAuthorizationResponseAlgorithm;
  }

  async function sign(response: UnsignedJwtResponse): Promise<AuthorizationResponse> {
    const { target, fields } = response;
    const alg = algorithmFor(target.clientId);
    const key = deps.keyRing.signingKey(alg);
    const now = Math.floor(deps.clock.now() / 1000);
    // JARM §2.1: `iss` (among the fields, RFC 9207's value), `aud` the client, `exp`.
    const claims = { ...Object.fromEntries(fields), aud: target.clientId, iat: now, exp: now + authorizationResponseLifetime };
    const jwt = await signToken(tracing, 'sign authorization response', key, { alg, kid: key.kid }, claims);
    return deliver(target.redirectUri, target.responseMode === 'form_post.jwt' ? 'form_post' : 'query', [['response', jwt]]);
  }

  return async function seal(outcome) {
    const { response } = outcome;
    if (response?.kind !== 'jwt') return outcome as SentOutcome;
    return { ...outcome, response: await sign(response) };
  };
}
