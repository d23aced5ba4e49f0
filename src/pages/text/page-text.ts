/**
 * Every word the device page shows, for one language. A language is one module exporting a
 * `PageText` (see `en.ts`); the compiler holds each to the full set, so a new page (sign-in,
 * consent) adds its keys here and every language must follow. Texts that wrap a value the
 * page escapes (a client name, a username) are functions returning `SafeHtml`.
 */
import type { MessageId, NoticeId, TimedMessageId } from '../../device/page-views.js';
import type { SafeHtml } from '../html.js';

export interface PageText {
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
  /** Descriptions of standard scopes, shown when the config gives none. */
  readonly scopes: Readonly<Record<string, string>>;
}
