/**
 * What the sign-in, consent and logout pages show, as plain data; `templates.ts` renders it in
 * the reader's language. Notices and messages are ids, not text (as on the device page); only a
 * plugin's own `SignInResult.message` arrives as text, in the plugin's words.
 */
import type { ScopeLine } from '../device/page-views.js';

/** Why the sign-in form is shown again. */
export type SignInNoticeId = 'credentials-missing' | 'credentials-wrong' | 'too-many-sign-ins';

/** Why an authorization request is refused before its redirect URI is trusted (shown, never redirected). */
export type UntrustedReason = 'request-malformed' | 'client-missing' | 'client-unknown' | 'redirect-uri-missing' | 'redirect-uri-unregistered' | 'link-used';

/** A page that is only a message. */
export type SignInMessageId =
  | UntrustedReason
  | 'request-unreadable'
  | 'start-again'
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
    }
  | {
      readonly kind: 'consent';
      readonly interaction: string;
      readonly csrf: string;
      readonly clientId: string;
      readonly clientName: string;
      readonly scopes: readonly ScopeLine[];
      readonly username: string;
    }
  | { readonly kind: 'logout'; readonly csrf: string; readonly fields: ReadonlyArray<readonly [string, string]> }
  | { readonly kind: 'message'; readonly message: SignInMessageId };
