/**
 * Validates an authorization request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1, RFC 7636 §4.3) over
 * plain parameters, in the order that decides where an error may go: until the client and its
 * redirect URI are known good, an error is shown to the user and never redirected
 * (RFC 6749 §4.1.2.1, RFC 9700 §4.11 open redirectors); after that it is redirected.
 */
import type { Client } from '../config/schema.js';
import { InvalidRequest, isOAuthError, OAuthError, UnauthorizedClient } from '../oauth/errors.js';
import { clientIdMaxLength, scopeMaxLength } from '../oauth/form-params.js';
import { resolveRequestedScopes, type ScopeCatalog } from '../oauth/scopes.js';
import { isRegisteredRedirectUri } from './redirect-uri.js';
import { acrRequestOf, type AcrRequest } from './acr.js';
import type { UntrustedReason } from '../pages/sign-in-views.js';
import type { Lookup } from '../clients/client-directory.js';

export type Prompt = 'none' | 'login' | 'consent';
export type ResponseMode = 'query' | 'form_post';

/** Where an authorization response (or a redirectable error) goes. */
export interface ResponseTarget {
  readonly redirectUri: string;
  readonly responseMode: ResponseMode;
  readonly state: string | undefined;
}

export interface AuthorizationRequest extends ResponseTarget {
  readonly clientId: string;
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
}

export interface ValidateOptions {
  /** The request came from a pushed authorization request (RFC 9126). */
  readonly pushed: boolean;
  /** The client already authenticated (PAR): its id must match `client_id`. */
  readonly authenticatedClient?: Client;
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
      throw new UntrustedRequestError('redirect-uri-unregistered', 'The redirect URI is not registered for this application.', `unregistered redirect_uri for client ${clientId}`);
    }
    const mode = params.get('response_mode');
    const state = params.get('state');
    const target: ResponseTarget = { redirectUri, responseMode: mode === 'form_post' ? 'form_post' : 'query', state: state !== undefined && state.length <= maxLength.state! ? state : undefined };
    return { client, target };
  }

  /** Step 3 on: everything else, redirected to the client on failure. */
  function checkParameters(params: ReadonlyMap<string, string>, client: Client, target: ResponseTarget, options: ValidateOptions): AuthorizationRequest {
    for (const [name, cap] of Object.entries(maxLength)) {
      const value = params.get(name);
      if (value !== undefined && value.length > cap) throw new InvalidRequest('A parameter is too long.', { logDetail: `${name} longer than ${cap}` });
    }
    const mode = params.get('response_mode');
    if (mode !== undefined && mode !== 'query' && mode !== 'form_post') throw new InvalidRequest('The response_mode is not supported.');
    if (params.has('request')) throw new OAuthError('request_not_supported', 'Request objects are not supported; use pushed authorization requests.');
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
    const scopes = resolveRequestedScopes(client, params.get('scope'), deps.scopeCatalog);
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
    };
  }

  return {
    checkClientAndRedirect,
    /** Throws `UntrustedRequestError` or `RedirectableError`. */
    validate(params: ReadonlyMap<string, string>, options: ValidateOptions): AuthorizationRequest {
      const { client, target } = checkClientAndRedirect(params, options);
      try {
        return checkParameters(params, client, target, options);
      } catch (err) {
        if (isOAuthError(err)) throw new RedirectableError(err, target);
        throw err;
      }
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
