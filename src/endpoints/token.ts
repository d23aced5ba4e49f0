/**
 * POST /connect/token (RFC 6749 §3.2): check the grant type, check the DPoP proof if one came
 * (RFC 9449 §5: it binds the tokens), authenticate the client, check it may use the grant (and
 * must it send a proof), the scopes, run the grant, prepare the tokens, then commit: spend the
 * grant's one-time record and store the tokens in one transaction, so a failure leaves the
 * request retryable and a lost race issues nothing.
 */
import type { Clock, ExtensionGrantValidator, Logger, ValidatedTokenRequest } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import type { ClientAuthenticator } from '../client-authentication/client-authenticator.js';
import { InvalidRequest, isOAuthError, UnauthorizedClient, UnsupportedGrantType } from '../oauth/errors.js';
import { answerSpentGrant, runGrant, type GrantOutcome } from '../grants/grant-runner.js';
import { resolveRequestedScopes, type ScopeCatalog } from '../oauth/scopes.js';
import { repeatedValues } from '../oauth/form-params.js';
import { noResources, type ResourceCatalog } from '../oauth/resources.js';
import { accessTarget } from '../oauth/access-target.js';
import { requireAcrMet } from '../oauth/required-acr.js';
import type { PreparedIssuance, TokenIssuer, TokenResponse } from '../oauth/token-issuer.js';
import type { FormRequest } from './form-request.js';
import type { EventService } from '../events/event-service.js';
import type { CertificateBinding } from '../sender-binding/certificate-binding.js';
import type { DpopProofValidator, VerifiedDpopProof } from '../sender-binding/dpop-proof-validator.js';
import type { Confirmation } from '../sdk/dpop.js';
import { tracingOff, type Tracing } from '../tracing/tracing.js';
import { checkFapi2DpopAlgorithm, fapi2SenderConstraint } from '../config/fapi2-profile.js';

export interface TokenEndpointDeps {
  clientAuthenticator: ClientAuthenticator;
  grants: ReadonlyMap<string, ExtensionGrantValidator>;
  tokenIssuer: TokenIssuer;
  scopeCatalog: ScopeCatalog;
  /** The APIs `resource` may name (RFC 8707); default none, so any `resource` is `invalid_target`. */
  resources?: ResourceCatalog;
  store: Store;
  clock: Clock;
  logger: Logger;
  events?: EventService;
  /** Parameters declared `credential` by the loaded contributions: they never travel further than client authentication. */
  credentialParameters: ReadonlySet<string>;
  /** Which requests bind their access token to the TLS client certificate (RFC 8705 §3); none without it. */
  certificateBinding?: CertificateBinding;
  dpop: DpopProofValidator;
  /** The token endpoint's public URL, the `htu` of its DPoP proofs. */
  tokenUrl: string;
  /** Spans of the grant and the issuance, and the request span's client id and grant type; default none. */
  tracing?: Tracing;
}

export function createTokenEndpoint(deps: TokenEndpointDeps) {
  const tracing = deps.tracing ?? tracingOff;
  const resources = deps.resources ?? noResources;
  function checkGrantType(request: FormRequest): ExtensionGrantValidator {
    const grantType = request.params.get('grant_type');
    if (grantType === undefined) throw new InvalidRequest('The grant_type parameter is missing.');
    const grant = deps.grants.get(grantType);
    if (!grant) throw new UnsupportedGrantType();
    return grant;
  }

  /**
   * RFC 9449 §5: a valid proof binds the tokens to its key; a client with `requireDPoP` must send
   * one. Checked before the client, so a bad proof is refused first; its `jti` is recorded
   * (`spend`) only once the client authenticated and the grant decided, so neither an unknown
   * caller nor a request a limit refuses (client or password back-off, device `slow_down`)
   * writes a record.
   */
  async function checkProof(request: FormRequest): Promise<VerifiedDpopProof | undefined> {
    return deps.dpop.verify({ headers: request.dpop, method: 'POST', url: deps.tokenUrl }, 'token');
  }

  async function issueTokens(request: FormRequest, seen: { clientId?: string }): Promise<TokenResponse> {
    const grant = checkGrantType(request);
    const verified = await checkProof(request);
    const proof = verified?.summary;
    // Only a registered grant type is recorded: the raw parameter is whatever the caller sent.
    tracing.annotate({ 'oauth.grant_type': grant.grantType });
    const authenticated = await deps.clientAuthenticator.authenticateClient({ ...request, endpoint: 'token' });
    const { client } = authenticated;
    seen.clientId = client.clientId;
    tracing.annotate({ 'oauth.client_id': client.clientId });
    if (!client.allowedGrantTypes.includes(grant.grantType)) {
      throw new UnauthorizedClient(undefined, { logDetail: `client "${client.clientId}" may not use ${grant.grantType}` });
    }
    if (client.requireDPoP && proof === undefined) {
      throw new InvalidRequest('A DPoP proof is required for this client.', { logDetail: `client "${client.clientId}" requires DPoP; no DPoP header` });
    }
    checkFapi2DpopAlgorithm(client, proof?.alg);
    const bound = deps.certificateBinding?.(client, authenticated, request.clientCertificate);
    // FAPI 2.0: no bearer tokens; without a proof the certificate binds them, without either the request is refused.
    const certificate = bound ?? fapi2SenderConstraint(client, { dpop: proof !== undefined, certificateThumbprint: request.clientCertificate?.thumbprint });
    // One confirmation for both kinds of binding (RFC 7800): a DPoP key and a TLS client certificate.
    const cnf: Confirmation | undefined = proof || certificate ? { ...(proof ? { jkt: proof.jkt } : {}), ...certificate } : undefined;
    const requestedScopes = resolveRequestedScopes(client, request.params.get('scope'), deps.scopeCatalog);
    // RFC 8707 §2: the APIs the token is for, checked before any grant runs.
    const requestedResources = resources.resolve(client, repeatedValues(request.params, 'resource'));
    const raw = new Map(request.params);
    for (const name of deps.credentialParameters) raw.delete(name);
    const validated: ValidatedTokenRequest = { client, grantType: grant.grantType, requestedScopes, scopeRequested: request.params.has('scope'), resources: requestedResources, raw, remoteAddress: request.remoteAddress, dpop: proof,
      certificateThumbprint: request.clientCertificate?.thumbprint };
    const attributes = { 'oauth.grant_type': grant.grantType, 'oauth.client_id': client.clientId };
    const outcome = await tracing.span(`grant ${grant.grantType}`, attributes, () => runGrant(grant, validated, deps.logger));
    const target = accessTarget(resources, validated, outcome);
    requireAcrMet(resources.requiredAcr(target?.audience ?? outcome.success.audience, target?.scopes ?? outcome.scopes), outcome.success.subject, client.clientId);
    // RFC 9449 §11.1: the replay check, before anything is issued or spent.
    await verified?.spend();
    const response = await tracing.span('token_issuance', attributes, async () => {
      const issuance = await deps.tokenIssuer.prepare({
        client, grantType: grant.grantType, grant: outcome.success, scopes: outcome.scopes, customResponse: outcome.customResponse,
        ...(target ? { target } : {}), ...(cnf ? { cnf } : {}),
      });
      return commit(grant, validated, outcome, issuance);
    });
    deps.events?.raise(
      { type: 'token.issued', clientId: client.clientId, grantType: grant.grantType, subject: outcome.success.subject.id, scopes: target?.scopes ?? outcome.scopes },
      request.requestId,
    );
    return response;
  }

  async function commit(grant: ExtensionGrantValidator, request: ValidatedTokenRequest, outcome: GrantOutcome, issuance: PreparedIssuance): Promise<TokenResponse> {
    const spends = outcome.success.consumes;
    const consume = spends === undefined ? undefined : { key: spends, now: deps.clock.now() };
    if (consume === undefined && issuance.records.length === 0) return issuance.response;
    if (!(await deps.store.commit({ ...(consume ? { consume } : {}), add: issuance.records }))) {
      throw await answerSpentGrant(grant, spends!, request, deps.logger);
    }
    if (spends !== undefined) await announceRedeemed(grant, outcome, request);
    return issuance.response;
  }

  /** Only the request whose commit spent the one-time grant tells the grant so (e.g. `code.redeemed`). */
  async function announceRedeemed(grant: ExtensionGrantValidator, outcome: GrantOutcome, request: ValidatedTokenRequest): Promise<void> {
    try {
      await grant.redeemed?.(outcome.success, request);
    } catch (err) {
      deps.logger.error({ err, grantType: grant.grantType, clientId: request.client.clientId }, 'grant redeemed hook failed; the tokens stand');
    }
  }

  return async function tokenEndpoint(request: FormRequest): Promise<TokenResponse> {
    const seen: { clientId?: string } = {};
    try {
      return await issueTokens(request, seen);
    } catch (err) {
      // Polling answers of the device flow are not failures worth an event.
      const code = isOAuthError(err) ? err.code : 'server_error';
      if (code !== 'authorization_pending' && code !== 'slow_down') {
        deps.events?.raise({ type: 'token.failed', clientId: seen.clientId, grantType: request.params.get('grant_type')?.slice(0, 200), error: code }, request.requestId);
      }
      throw err;
    }
  };
}
