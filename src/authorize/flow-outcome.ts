/**
 * What the browser flows (authorize, sign-in, consent, logout) answer, without HTTP: a page to
 * show, or a response for the client's redirect URI. `src/http/pages/sign-in-pages.ts` turns it into Koa.
 */
import type { Client } from '../config/schema.js';
import type { OAuthError } from '../oauth/errors.js';
import type { SignInMessageId, SignInView } from '../pages/sign-in-views.js';
import type { AuthorizationRequest } from './authorization-request.js';
import { authorizationResponse, errorResponse, type AuthorizationResponse, type PendingResponse } from './authorization-response.js';

export interface BrowserContext {
  /** The id in the browser's valid cookie, if any. */
  readonly browserId: string | undefined;
  readonly remoteAddress: string | undefined;
  readonly requestId?: string | undefined;
}

/**
 * An answer of the flow. Its steps may answer a JARM response still to be signed
 * (`PendingResponse`); what leaves the flow (`SentOutcome`) has been signed (`jarm.ts`).
 */
export interface FlowOutcome<Response extends PendingResponse = PendingResponse> {
  readonly status: number;
  readonly view?: SignInView;
  readonly response?: Response;
  /** A browser id to set in the cookie (a new one after sign-in). */
  readonly browserId?: string;
  /** Clear the cookie (logout). */
  readonly clearCookie?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
  /** Where the page's forms and redirects may go, for its Content-Security-Policy. */
  readonly redirectUri?: string;
  /** The request's `ui_locales` (OIDC Core §3.1.2.1), for the page's language. */
  readonly uiLocales?: string;
  /** Issue 34: the upstream providers' origins, where the page's buttons lead after our redirect (CSP `form-action`). */
  readonly formTargets?: readonly string[];
}

/** An answer ready to send: no response in it waits for a signature. */
export type SentOutcome = FlowOutcome<AuthorizationResponse>;

/** A page with one message and no form, in the request's language when it is known. */
export const pageMessage = (status: number, id: SignInMessageId, uiLocales?: string): SentOutcome =>
  ({ status, view: { kind: 'message', message: id }, ...(uiLocales ? { uiLocales } : {}) });

/** The name a page shows for a client. */
export const clientName = (c: Client): string => c.clientName ?? c.clientId;

export const languageOf = (request: AuthorizationRequest): { uiLocales?: string } => (request.uiLocales ? { uiLocales: request.uiLocales } : {});

/** RFC 6749 §4.1.2: the answer at the client's redirect URI. */
export const redirectResponse = (issuer: string, request: AuthorizationRequest, values: Record<string, string>): FlowOutcome => ({
  status: 200, response: authorizationResponse(issuer, request, values), redirectUri: request.redirectUri,
});

/** RFC 6749 §4.1.2.1: an error at the client's redirect URI, once that URI is trusted. */
export const redirectError = (issuer: string, request: AuthorizationRequest, error: OAuthError): FlowOutcome => ({
  status: 200, response: errorResponse(issuer, request, error), redirectUri: request.redirectUri,
});
