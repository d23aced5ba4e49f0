/**
 * Validates an authorization request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1, RFC 7636 §4.3) over
 * plain parameters, in the order that decides where an error may go: until the client and its
 * redirect URI are known good, an error is shown to the user and never redirected
 * (RFC 6749 §4.1.2.1, RFC 9700 §4.11 open redirectors); after that it is redirected.
 */
import type { Client } from '../config/schema.js';
import { InvalidRequest, isOAuthError, OAuthError, UnauthorizedClient } from '../oauth/errors.js';
import type { RequestObjectReader } from './request-object.js';
import { clientIdMaxLength, scopeMaxLength } from '../oauth/form-params.js';
import { resolveRequestedScopes, type ScopeCatalog } from '../oauth/scopes.js';
import { repeatedValues } from '../oauth/form-params.js';
import { noResources, type ResourceCatalog } from '../oauth/resources.js';
import { isRegisteredRedirectUri } from './redirect-uri.js';
import { acrRequestOf, type AcrRequest } from './acr.js';
import type { UntrustedReason } from '../pages/sign-in-views.js';
import type { Lookup } from '../clients/client-directory.js';
import { checkFapi2AuthorizationRequest } from '../config/fapi2-profile.js';

export type Prompt = 'none' | 'login' | 'consent';
/** `query.jwt` and `form_post.jwt`: the same, the parameters signed into one JWT (JARM, `jarm.ts`). */
export type ResponseMode = 'query' | 'form_post' | 'query.jwt' | 'form_post.jwt';

/**
 * JARM §2.3: `jwt` is the response type's default mode with a JWT, `query.jwt` for the code flow
 * (the only flow here). `fragment` and `fragment.jwt` are for tokens in the front channel, which
 * RFC 9700 §2.1.2 rules out.
 */
const responseModes: Readonly<Record<string, ResponseMode>> = {
  query: 'query', form_post: 'form_post', jwt: 'query.jwt', 'query.jwt': 'query.jwt', 'form_post.jwt': 'form_post.jwt',
};
export const responseModesSupported: readonly string[] = Object.keys(responseModes);

/** Where an authorization response (or a redirectable error) goes. */
export interface ResponseTarget {
  /** The client the response is for: the `aud` of a JARM response. */
  readonly clientId: string;
  readonly redirectUri: string;
  readonly responseMode: ResponseMode;
  readonly state: string | undefined;
}

export interface AuthorizationRequest extends ResponseTarget {
  readonly scopes: readonly string[];
  readonly nonce: string | undefined;
  /** S256 challenge, or `undefined` for a confidential client that may skip PKCE. */
  readonly codeChallenge: string | undefined;
  readonly prompt: readonly Prompt[];
  /** Seconds (OIDC Core §3.1.2.1), when sent. */
  readonly maxAge: number | undefined;
  readonly loginHint: string | undefined;
  /**
   * OIDC Core §3.1.2.1 `acr_values`, kept only for IdentityServer's `idp:<name>` convention
   * (issue 34): the upstream identity provider to go to at once. Capped at 256 characters.
   */
  readonly acrValues?: string | undefined;
  /** Issue 35: the `acr` asked for by `acr_values` or the `claims` parameter (`acr.ts`). */
  readonly acr?: AcrRequest | undefined;
  /** OIDC Core §3.1.2.1 `ui_locales`, for the pages' language; absent or over its cap, none. */
  readonly uiLocales?: string | undefined;
  /**
   * RFC 9449 §10 `dpop_jkt`: the thumbprint of the DPoP key the code is bound to, from the
   * parameter or (§10.1) from the proof that came with the pushed request.
   */
  readonly dpopJkt?: string | undefined;
  /**
   * OIDC Core §3.1.2.1 `id_token_hint` as sent. The flow reads it once, before anything is
   * stored for the browser, and keeps only `hintSubject`.
   */
  readonly idTokenHint?: string | undefined;
  /** The `sub` of the request's valid `id_token_hint`: a session of another user must sign in again. */
  readonly hintSubject?: string | undefined;
  /** RFC 8707: the APIs the request named with `resource` (audience identifiers), kept with the code. */
  readonly resources?: readonly string[] | undefined;
}

/** An error before the client and redirect URI are trusted: shown on a 400 page, never redirected. */
export class UntrustedRequestError extends Error {
  override readonly name = 'UntrustedRequestError';
  /** `text` is the English description (PAR's JSON answer); `reason` lets a page word it in the reader's language. */
  constructor(readonly reason: UntrustedReason, readonly text: string, readonly logDetail: string) {
    super(text);
  }
}

/** An error the client hears at its redirect URI. */
export class RedirectableError extends Error {
  override readonly name = 'RedirectableError';
  constructor(readonly error: OAuthError, readonly target: ResponseTarget) {
    super(error.description);
  }
}

/**
 * Length caps per parameter, like the token endpoint's body limits: nothing unbounded is stored.
 * `client_id` and `scope` have the caps of every endpoint (the form reader has applied them already).
 */
const maxLength: Readonly<Record<string, number>> = {
  client_id: clientIdMaxLength, redirect_uri: 2000, response_type: 50, response_mode: 50, scope: scopeMaxLength, state: 2000, nonce: 500,
  code_challenge: 128, code_challenge_method: 20, prompt: 50, max_age: 12, login_hint: 256, request_uri: 200,
  // An ID token of ours: a few claims and one signature (RSA-4096 at most), far below this.
  id_token_hint: 8192,
  // OIDC Core §5.5; only its `acr` is read (issue 35).
  claims: 4000,
};
/** A hint only: one over its cap is dropped rather than refused. */
const maxUiLocales = 100;
const uiLocalesOf = (params: ReadonlyMap<string, string>): { uiLocales?: string } => {
  const value = params.get('ui_locales');
  return value !== undefined && value.length <= maxUiLocales ? { uiLocales: value } : {};
};
/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is always 43 characters. */
const s256Challenge = /^[A-Za-z0-9_-]{43}$/;
/** RFC 9449 §10: a JWK SHA-256 thumbprint (RFC 7638), base64url, is 43 characters too. */
const jwkThumbprint = s256Challenge;
const prompts: ReadonlySet<string> = new Set<Prompt>(['none', 'login', 'consent']);

export interface RequestValidatorDeps {
  readonly clients: Lookup<Client>;
  readonly scopeCatalog: ScopeCatalog;
  /** Reads signed request objects (RFC 9101); without it a `request` is refused as unsupported. */
  readonly requestObjects?: RequestObjectReader | undefined;
  /** `requestObjects.required`: every client must send a signed request object (RFC 9101 §10.5). */
  readonly requireRequestObjects?: boolean | undefined;
  /** The APIs `resource` may name (RFC 8707); default none. */
  readonly resources?: ResourceCatalog;
}

export interface ValidateOptions {
  /** The request came from a pushed authorization request (RFC 9126). */
  readonly pushed: boolean;
  /** The client already authenticated (PAR): its id must match `client_id`. */
  readonly authenticatedClient?: Client;
  /** The parameters came from a signed request object (RFC 9101), checked by `read`. */
  readonly signed?: boolean;
}

export function createRequestValidator(deps: RequestValidatorDeps) {
  /** Steps 1–2: the client and its redirect URI. */
  function checkClientAndRedirect(params: ReadonlyMap<string, string>, options: ValidateOptions): { client: Client; target: ResponseTarget } {
    for (const [name, cap] of Object.entries(maxLength)) {
      const value = params.get(name);
      if (value !== undefined && value.length > cap && (name === 'client_id' || name === 'redirect_uri')) {
        throw new UntrustedRequestError('request-malformed', 'The request is malformed.', `${name} longer than ${cap}`);
      }
    }
    const clientId = params.get('client_id');
    if (clientId === undefined) throw new UntrustedRequestError('client-missing', 'The request names no client.', 'client_id missing');
    const redirectUri = params.get('redirect_uri');
    // OIDC Core §3.1.2.1 makes redirect_uri REQUIRED; requiring it also means the token request can always compare it.
    // Checked before the client is looked up, so the answer says nothing about whether the client exists.
    if (redirectUri === undefined) throw new UntrustedRequestError('redirect-uri-missing', 'The request names no redirect URI.', `redirect_uri missing (client ${JSON.stringify(clientId)})`);
    const client = deps.clients.get(clientId);
    if (!client) throw new UntrustedRequestError('client-unknown', 'The application that sent you here is not known.', `unknown client ${JSON.stringify(clientId)}`);
    if (options.authenticatedClient && options.authenticatedClient.clientId !== clientId) {
      throw new UntrustedRequestError('request-malformed', 'The request is malformed.', 'client_id differs from the authenticated client');
    }
    if (!isRegisteredRedirectUri(client, redirectUri)) {
      throw new UntrustedRequestError('redirect-uri-unregistered', 'The redirect URI is not registered for this application.', `unregistered redirect_uri ${JSON.stringify(shortened(redirectUri))} for client ${JSON.stringify(clientId)}`);
    }
    return { client, target: targetOf(client, redirectUri, params) };
  }

  /** Where an error goes (RFC 6749 §4.1.2.1): the mode asked for, else the query; a state only within its cap. */
  function targetOf(client: Client, redirectUri: string, params: ReadonlyMap<string, string>): ResponseTarget {
    const state = params.get('state');
    return {
      clientId: client.clientId, redirectUri, responseMode: responseModes[params.get('response_mode') ?? 'query'] ?? 'query',
      state: state !== undefined && state.length <= maxLength.state! ? state : undefined,
    };
  }

  /** Step 3 on: everything else, redirected to the client on failure. */
  function checkParameters(params: ReadonlyMap<string, string>, client: Client, target: ResponseTarget, options: ValidateOptions): AuthorizationRequest {
    for (const [name, cap] of Object.entries(maxLength)) {
      const value = params.get(name);
      if (value !== undefined && value.length > cap) throw new InvalidRequest('A parameter is too long.', { logDetail: `${name} longer than ${cap}` });
    }
    const mode = params.get('response_mode');
    if (mode !== undefined && !Object.hasOwn(responseModes, mode)) throw new InvalidRequest('The response_mode is not supported.');
    // Only `read` takes a request object apart; what reaches here came out of one or had none.
    if (params.has('request')) throw new OAuthError('request_not_supported', 'Request objects are not supported here.');
    if (params.has('request_uri')) {
      throw options.pushed
        // RFC 9126 §2.1: a pushed request cannot itself refer to another.
        ? new InvalidRequest('A pushed authorization request must not contain request_uri.')
        : new OAuthError('invalid_request_uri', 'The request_uri is invalid or expired.');
    }
    // RFC 9700 §2.1.2: no implicit or hybrid flow.
    const responseType = params.get('response_type');
    if (responseType === undefined) throw new InvalidRequest('The response_type parameter is missing.');
    if (responseType !== 'code') throw new OAuthError('unsupported_response_type', 'Only response_type=code is supported.');
    if (!client.allowedGrantTypes.includes('authorization_code')) {
      throw new UnauthorizedClient('The client is not allowed to use the authorization code flow.');
    }
    if (client.requirePushedAuthorization && !options.pushed) {
      throw new InvalidRequest('This client must use pushed authorization requests.');
    }
    // RFC 9101 §10.5: `require_signed_request_object`, for the client or for every client.
    if ((client.requireRequestObject || deps.requireRequestObjects === true) && options.signed !== true) {
      throw new InvalidRequest('This client must send a signed request object (request).');
    }
    // Issue 37: PAR only, and under Message Signing a signed request object asking for a signed response.
    checkFapi2AuthorizationRequest(client, { pushed: options.pushed, signed: options.signed === true, responseMode: mode });
    // RFC 8707 §2: the APIs named, and only the requested scopes that belong to them.
    const { scopes, resources } = (deps.resources ?? noResources).grantTarget(client, repeatedValues(params, 'resource'), resolveRequestedScopes(client, params.get('scope'), deps.scopeCatalog));
    const codeChallenge = checkPkce(params, client);
    const prompt = checkPrompt(params.get('prompt'));
    const maxAgeText = params.get('max_age');
    if (maxAgeText !== undefined && !/^\d{1,10}$/.test(maxAgeText)) throw new InvalidRequest('The max_age parameter must be a whole number of seconds.');
    const idTokenHint = params.get('id_token_hint');
    const dpopJkt = params.get('dpop_jkt');
    if (dpopJkt !== undefined && !jwkThumbprint.test(dpopJkt)) throw new InvalidRequest('The dpop_jkt parameter must be a base64url SHA-256 JWK thumbprint.');
    return {
      ...target,
      clientId: client.clientId,
      scopes,
      nonce: params.get('nonce'),
      codeChallenge,
      prompt,
      maxAge: maxAgeText === undefined ? undefined : Number(maxAgeText),
      loginHint: params.get('login_hint'),
      ...(params.get('acr_values') === undefined ? {} : { acrValues: params.get('acr_values')!.slice(0, 256) }),
      ...acrRequestOf(params),
      ...uiLocalesOf(params),
      ...(dpopJkt === undefined ? {} : { dpopJkt }),
      ...(idTokenHint === undefined ? {} : { idTokenHint }),
      ...(resources.length === 0 ? {} : { resources }),
    };
  }

  /** Throws `UntrustedRequestError` or `RedirectableError`. */
  function validate(params: ReadonlyMap<string, string>, options: ValidateOptions): AuthorizationRequest {
    const { client, target } = checkClientAndRedirect(params, options);
    try {
      return checkParameters(params, client, target, options);
    } catch (err) {
      if (isOAuthError(err)) throw new RedirectableError(err, target);
      throw err;
    }
  }

  /**
   * RFC 9101 §5 and §6.3: with a `request`, its parameters alone count, and `client_id` beside it
   * (or the client that authenticated at PAR) says whose keys verify it. A refused object goes,
   * as `invalid_request_object`, to the redirect URI of the query when that one is the client's
   * (the query is what the browser brought either way), else to the page; at PAR it is the answer.
   */
  async function readRequestObject(requestObject: string, params: ReadonlyMap<string, string>, options: ValidateOptions): Promise<AuthorizationRequest> {
    const clientId = params.get('client_id');
    if (clientId === undefined) throw new UntrustedRequestError('client-missing', 'The request names no client.', 'request object without client_id beside it');
    if (clientId.length > maxLength.client_id!) throw new UntrustedRequestError('request-malformed', 'The request is malformed.', 'client_id too long');
    const client = deps.clients.get(clientId);
    if (!client) throw new UntrustedRequestError('client-unknown', 'The application that sent you here is not known.', `unknown client ${JSON.stringify(clientId)}`);
    if (options.authenticatedClient && options.authenticatedClient.clientId !== clientId) {
      throw new UntrustedRequestError('request-malformed', 'The request is malformed.', 'client_id differs from the authenticated client');
    }
    let inner: Map<string, string>;
    try {
      // Without a plugin that verifies client signatures there is nothing to check one with.
      if (!deps.requestObjects) throw new OAuthError('request_not_supported', 'Request objects are not supported.');
      inner = await deps.requestObjects(requestObject, client);
    } catch (err) {
      if (!isOAuthError(err) || options.pushed) throw err;
      const redirectUri = params.get('redirect_uri');
      if (redirectUri !== undefined && redirectUri.length <= maxLength.redirect_uri! && isRegisteredRedirectUri(client, redirectUri)) {
        throw new RedirectableError(err, targetOf(client, redirectUri, params));
      }
      throw new UntrustedRequestError('request-malformed', 'The request is malformed.', `request object refused (${err.logDetail ?? err.code}) and no registered redirect_uri beside it`);
    }
    // §5: client_id is the one parameter both carry; the object's was checked to be the same.
    inner.set('client_id', clientId);
    return validate(inner, { ...options, signed: true });
  }

  /**
   * RFC 9101 §5.2: a `request_uri` that is not a pushed request's would have the service fetch a
   * request object from another host, which it does not (no outgoing request on a browser's
   * word): `request_uri_not_supported`, at the redirect URI beside it when that one is the client's.
   */
  function refuseRequestUriByReference(params: ReadonlyMap<string, string>): never {
    const error = new OAuthError('request_uri_not_supported', 'A request_uri is accepted only from pushed authorization requests.');
    throw new RedirectableError(error, checkClientAndRedirect(params, { pushed: false }).target);
  }

  return {
    checkClientAndRedirect,
    validate,
    refuseRequestUriByReference,
    /**
     * The request as the endpoint received it: a signed request object's parameters when it
     * carries one (`request`), else its own. Throws `UntrustedRequestError` or
     * `RedirectableError`; at PAR (`pushed`) an object's refusal is the OAuth error itself.
     */
    async read(params: ReadonlyMap<string, string>, options: ValidateOptions): Promise<AuthorizationRequest> {
      const requestObject = params.get('request');
      return requestObject === undefined ? validate(params, { ...options, signed: false }) : readRequestObject(requestObject, params, options);
    },
  };
}

export type RequestValidator = ReturnType<typeof createRequestValidator>;

/** RFC 7636 with RFC 9700 §2.1.1: S256 only; required unless a confidential client opted out. */
function checkPkce(params: ReadonlyMap<string, string>, client: Client): string | undefined {
  const challenge = params.get('code_challenge');
  const method = params.get('code_challenge_method');
  if (challenge === undefined) {
    if (method !== undefined) throw new InvalidRequest('code_challenge_method was sent without code_challenge.');
    if (client.requirePkce || !client.requireClientSecret) throw new InvalidRequest('A code_challenge (PKCE, S256) is required.');
    return undefined;
  }
  // RFC 7636 §4.3: a missing method means plain, which RFC 9700 §2.1.1 rules out.
  if (method !== 'S256') throw new InvalidRequest('Only code_challenge_method=S256 is supported.');
  if (!s256Challenge.test(challenge)) throw new InvalidRequest('The code_challenge is malformed.');
  return challenge;
}

function checkPrompt(value: string | undefined): Prompt[] {
  if (value === undefined) return [];
  const list = [...new Set(value.split(' ').filter(Boolean))];
  if (list.some((p) => !prompts.has(p))) throw new InvalidRequest('The prompt parameter has an unsupported value.');
  // OIDC Core §3.1.2.1: none with any other value is an error.
  if (list.includes('none') && list.length > 1) throw new InvalidRequest('prompt=none cannot be combined with other values.');
  return list as Prompt[];
}

/**
 * A received value as a log line may show it: an operator comparing a refused redirect URI with
 * the registered ones needs to see it (issue 39), a megabyte of it helps nobody.
 */
function shortened(value: string, most = 256): string {
  return value.length <= most ? value : `${value.slice(0, most)}…`;
}
