/**
 * Every word the pages show (the device page; the sign-in, consent and logout pages), for one
 * language. A language is one module exporting a `PageText` (see `en.ts`); the compiler holds
 * each to the full set, so a new page adds its keys here and every language must follow. Texts
 * that wrap a value the page escapes (a client name, a username) are functions returning
 * `SafeHtml`. The sign-in pages share the device page's words where they say the same thing
 * (field labels, the consent buttons and scope list) and add their own under `authorize`.
 */
import type { MessageId, NoticeId, TimedMessageId } from '../device-views.js';
import type { SafeHtml } from '../html.js';
import type { ExternalSignInFailure } from '../../sdk/contracts.js';
import type { SignInMessageId, SignInNoticeId } from '../sign-in-views.js';
import type { AccountNoticeId } from '../account-views.js';
import type { SecondFactorNoticeId } from '../second-factor-views.js';
import type { BrokenPasswordRule } from '../../config/password-rules.js';

/** The scopes OpenID Connect defines: every language describes them. */
export type StandardScope = 'openid' | 'profile' | 'email' | 'address' | 'phone' | 'offline_access';

/** ISSUE 34: the sign-in page's upstream identity providers. */
export interface UpstreamText {
  /** The button, e.g. `Sign in with Contoso`. */
  readonly signInWith: (provider: SafeHtml) => SafeHtml;
  /** Between the buttons and the password form. */
  readonly orPassword: string;
  /** Why the sign-in at the provider failed, naming it; the page offers the buttons again. */
  readonly failed: Readonly<Record<ExternalSignInFailure, (provider: string) => string>>;
  /** A failure a plugin worded itself. */
  readonly failedWith: (provider: string, message: string) => string;
  /** Below the failure: the way back. */
  readonly tryAgain: string;
}

export interface PageText {
  /** ISSUE 34: upstream identity providers on the sign-in page. */
  readonly upstream: UpstreamText;
  /** BCP 47 tag, written to `<html lang>` and matched against `ui_locales` / `Accept-Language`. */
  readonly lang: string;
  readonly brand: string;
  readonly enterCode: { readonly title: string; readonly intro: string; readonly label: string; readonly submit: string };
  readonly signIn: {
    readonly title: string;
    readonly intro: (client: SafeHtml) => SafeHtml;
    readonly username: string;
    readonly password: string;
    readonly submit: string;
    /** Before the user code, e.g. `Code:`. */
    readonly code: string;
  };
  readonly consent: {
    readonly title: string;
    readonly intro: (client: SafeHtml) => SafeHtml;
    readonly checkCode: string;
    readonly scopesHeading: string;
    /** Before the APIs a request named with `resource` (RFC 8707), when it named any. */
    readonly resourcesHeading: string;
    readonly approve: string;
    readonly deny: string;
    readonly signedInAs: (username: SafeHtml) => SafeHtml;
    readonly signOut: string;
  };
  readonly done: {
    readonly approvedTitle: string;
    readonly approved: (client: SafeHtml) => SafeHtml;
    readonly deniedTitle: string;
    readonly denied: (client: SafeHtml) => SafeHtml;
  };
  /** The link back to the first step, under a message. */
  readonly startAgain: string;
  readonly notices: Readonly<Record<NoticeId, string>>;
  readonly messages: Readonly<Record<Exclude<MessageId, TimedMessageId>, { readonly title: string; readonly text: string }>> &
    Readonly<Record<TimedMessageId, { readonly title: string; readonly text: (minutes: number, until: string) => string }>>;
  /** Descriptions of the standard OpenID scopes (OIDC Core §5.4, §11), shown when the config gives none. */
  readonly scopes: Readonly<Record<StandardScope, string>> & Readonly<Record<string, string | undefined>>;
  /** The footer's links to the deployment's `pages.privacyPolicyUrl` and `pages.termsUrl`. */
  readonly legal: { readonly privacyPolicy: string; readonly terms: string };
  /** The authorization endpoint's pages: sign-in, consent, logout, form_post and their messages. */
  readonly authorize: {
    /** The small line above the heading of the sign-in and consent pages. */
    readonly brand: string;
    /** The same line on the logout pages. */
    readonly signOutBrand: string;
    readonly signInIntro: (client: SafeHtml) => SafeHtml;
    /** On the consent page of a self-registered client (RFC 7591 §5): nobody vouches for its name. */
    readonly unverifiedClient: (client: SafeHtml) => SafeHtml;
    /** On the consent page of a self-registered or native public client: where the browser goes next (a host or an app's scheme). */
    readonly returnsTo: (target: SafeHtml) => SafeHtml;
    readonly logout: { readonly title: string; readonly question: string; readonly confirm: string; readonly stay: string };
    /** The form_post page's heading and button (shown when JavaScript is off). */
    readonly continue: string;
    /** Under an error page: the request id a person can quote to the operator (issue 39). */
    readonly reference: (requestId: SafeHtml) => SafeHtml;
    /** Under an error page: the link to the service's start page, so the page is no dead end. */
    readonly startPage: string;
    readonly notices: Readonly<Record<SignInNoticeId, string>>;
    readonly messages: Readonly<Record<SignInMessageId, { readonly title: string; readonly text: string }>>;
  };
  /** The password change page (`/account/password`, issue 34). */
  readonly account: {
    readonly brand: string;
    readonly title: string;
    readonly intro: string;
    readonly current: string;
    readonly next: string;
    readonly again: string;
    readonly submit: string;
    readonly doneTitle: string;
    readonly done: string;
    readonly notices: Readonly<Record<AccountNoticeId, string>>;
    readonly broken: (broken: BrokenPasswordRule) => string;
  };
  /** Issue 34: "Forgot password?" (`/account/password-reset`), its page and its mail. */
  readonly passwordReset: {
    /** The link under the sign-in form. */
    readonly forgot: string;
    readonly title: string;
    readonly intro: string;
    readonly identifier: string;
    readonly submit: string;
    readonly sentTitle: string;
    /** The same words whether or not the account exists. */
    readonly sent: (minutes: number) => string;
    readonly newTitle: string;
    readonly newIntro: (username: SafeHtml) => SafeHtml;
    readonly submitNew: string;
    readonly doneTitle: string;
    readonly done: string;
    readonly unusableTitle: string;
    readonly unusable: string;
    readonly requestAnother: string;
    readonly throttled: (minutes: number) => string;
    readonly notices: Readonly<Record<'fields-missing' | 'mismatch', string>>;
    readonly mail: {
      readonly subject: string;
      readonly text: (username: string, link: string, minutes: number) => string;
    };
  };
  /** Issue 35: one-time codes and recovery codes, in the sign-in flow and on `/account/second-factor`. */
  readonly secondFactor: {
    readonly brand: string;
    /** The sign-in flow's second step. */
    readonly title: string;
    readonly intro: string;
    readonly codeLabel: string;
    readonly codeOrRecoveryLabel: string;
    readonly submit: string;
    readonly enrolTitle: string;
    /** In the sign-in flow: why the person is asked to set one up now. */
    readonly enrolRequired: string;
    readonly enrolIntro: string;
    readonly qrLabel: string;
    readonly secretLabel: string;
    readonly enrolSubmit: string;
    readonly recoveryTitle: string;
    readonly recoveryIntro: string;
    readonly continue: string;
    readonly notices: Readonly<Record<SecondFactorNoticeId, string>>;
    /** The account page. */
    readonly accountTitle: string;
    readonly active: string;
    readonly inactive: string;
    readonly recoveryLeft: (left: number, total: number) => string;
    readonly newRecoveryCodes: string;
    readonly setUp: string;
    readonly signInFirst: string;
    readonly notHere: string;
    /** Passkeys (WebAuthn): the account page's list and the sign-in pages' buttons. */
    readonly passkeysHeading: string;
    readonly passkeysNone: string;
    readonly passkeyName: string;
    readonly addPasskey: string;
    readonly removePasskey: (name: string) => string;
    readonly renameLabel: (name: string) => string;
    readonly renamePasskey: (name: string) => string;
    readonly usePasskey: string;
    readonly orCode: string;
    readonly signInWithPasskey: string;
    readonly passkeyFailed: string;
    readonly passkeyNeedsScript: string;
    readonly stepUpFirst: string;
  };
}
