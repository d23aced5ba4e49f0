/**
 * What the sign-in, consent and logout pages show, as plain data; `src/pages/sign-in-templates.ts`
 * renders it in the reader's language. Notices and messages are ids, not text (as on the device
 * page); only a plugin's own `SignInResult.message` arrives as text, in the plugin's words.
 */
import type { ScopeLine } from './device-views.js';
import type { ExternalSignInFailure } from '../sdk/contracts.js';
import type { EnrolmentPart, SecondFactorNoticeId } from './second-factor-views.js';

/** Why the sign-in form is shown again. */
export type SignInNoticeId = 'credentials-missing' | 'credentials-wrong' | 'too-many-sign-ins' | 'passkey-failed';

/** Why an authorization request is refused before its redirect URI is trusted (shown, never redirected). */
export type UntrustedReason = 'request-malformed' | 'client-missing' | 'client-unknown' | 'redirect-uri-missing' | 'redirect-uri-unregistered' | 'link-used';

/** A page that is only a message. */
export type SignInMessageId =
  // An unregistered redirect URI is shown as `client-unknown` (`shownReason`).
  | Exclude<UntrustedReason, 'redirect-uri-unregistered'>
  | 'request-unreadable'
  // Issue 36: the client_id names a client ID metadata document that could not be fetched or used.
  | 'client-document-unusable'
  | 'start-again'
  | 'cookies-conflict'
  | 'external-sign-in-failed'
  | 'sign-out-unreadable'
  | 'sign-out-invalid'
  | 'sign-out-redirect-unregistered'
  | 'sign-out-expired'
  | 'still-signed-in'
  | 'signed-out'
  | 'unavailable'
  | 'too-many-requests'
  | 'failed';

export type SignInView =
  | {
      readonly kind: 'sign-in';
      readonly interaction: string;
      readonly csrf: string;
      readonly clientId: string;
      readonly clientName: string;
      readonly username?: string | undefined;
      readonly notice?: SignInNoticeId;
      /** A sign-in plugin's own message (its `SignInResult.message`), shown as given. */
      readonly message?: string;
      /** ISSUE 34: upstream identity providers offered, a button each (`ExternalSignIn.providers`). */
      readonly providers?: ReadonlyArray<{ readonly name: string; readonly displayName: string }> | undefined;
      /** ISSUE 34: with `providers`, false hides the username and password form. */
      readonly passwordForm?: boolean | undefined;
      /** Issue 35: the options of a passwordless passkey sign-in (JSON), with `secondFactor.passkeys`. */
      readonly passkeyOptions?: string | undefined;
      /** ISSUE 34: the provider whose sign-in just failed, and why. */
      readonly upstreamFailure?: { readonly provider: string; readonly reason?: ExternalSignInFailure | undefined; readonly message: string } | undefined;
    }
  | {
      readonly kind: 'consent';
      readonly interaction: string;
      readonly csrf: string;
      readonly clientId: string;
      readonly clientName: string;
      readonly scopes: readonly ScopeLine[];
      /** RFC 8707: the APIs the request named with `resource`, by their identifiers; empty when none. */
      readonly resources?: readonly string[] | undefined;
      readonly username: string;
      /** The client registered itself (RFC 7591 §5): the page says the operator has not verified it. */
      readonly unverified: boolean;
      /**
       * Where the browser goes next (`redirectTargetOf`), shown for a self-registered client and
       * for a native public client (RFC 8252 §8.6), whose names alone prove nothing.
       */
      readonly returnTo?: string | undefined;
    }
  | { readonly kind: 'logout'; readonly csrf: string; readonly fields: ReadonlyArray<readonly [string, string]> }
  /** Issue 35: the second step, a one-time code or a recovery code (`steps/second-factor-step.ts`). */
  | {
      readonly kind: 'second-factor'; readonly interaction: string; readonly csrf: string; readonly clientId: string; readonly clientName: string; readonly notice?: SecondFactorNoticeId;
      /** The code field: one-time codes on, or recovery codes left. */
      readonly code: boolean;
      /** The options of a passkey assertion (JSON), for a person with passkeys. */
      readonly passkeyOptions?: string | undefined;
    }
  /** Issue 35: a second factor to set up before the request goes on (policy or the client's `requireMfa`). */
  | { readonly kind: 'enrol-second-factor'; readonly interaction: string; readonly csrf: string; readonly clientName: string; readonly enrolment: EnrolmentPart; readonly notice?: SecondFactorNoticeId }
  /** Issue 35: the recovery codes of a new enrolment, shown once, then on with the request. */
  | { readonly kind: 'recovery-codes'; readonly interaction: string; readonly csrf: string; readonly codes: readonly string[] }
  | {
      readonly kind: 'message';
      readonly message: SignInMessageId;
      /** On a refusal or failure, the request id a person quotes to an operator (the log line carries the same id). */
      readonly reference?: string | undefined;
    };

/**
 * The page a refusal before the redirect URI is trusted shows. An unknown client and a known
 * client's unregistered redirect URI look the same, so nobody can try client ids to find which
 * exist (dynamic registration hardening); the log line says which it was.
 */
export function shownReason(reason: UntrustedReason): SignInMessageId {
  return reason === 'redirect-uri-unregistered' ? 'client-unknown' : reason;
}
