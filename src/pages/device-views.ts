/**
 * What each step of the verification page shows, as plain data; `src/pages/device-templates.ts` renders
 * it. Notices and messages are ids, not text: the renderer words them in the reader's language.
 */

import type { LocalizedText } from '../sdk/model.js';

export interface ScopeLine {
  readonly name: string;
  /** The configured description, one or per language; the page's text catalogue covers standard scopes without one (`scope-description.ts`). */
  readonly description: LocalizedText | undefined;
}

/** The configured descriptions by scope name, for both flows' consent pages. */
export type ScopeDescriptions = ReadonlyMap<string, LocalizedText | undefined>;

/** A notice above a form: why the last attempt did not go through. */
export type NoticeId =
  | 'code-missing'
  | 'code-unknown'
  | 'code-expired'
  | 'code-used'
  | 'credentials-missing'
  | 'credentials-wrong'
  | 'sign-in-required'
  // Issue 35: the account has one-time codes, so the password alone does not sign in.
  | 'second-factor-required'
  | 'second-factor-wrong'
  // Issue 35: the account's only factor is a passkey; a passkey was not accepted.
  | 'passkey-required'
  | 'passkey-failed';

/** A page that is only a message. */
export type MessageView =
  | { readonly kind: 'message'; readonly message: 'form-expired' | 'form-unreadable' | 'cookies-conflict' | 'unavailable' | 'failed' | 'second-factor-needed' }
  /** `minutes` to wait, rounded up; `until` the time it ends, `HH:MM` UTC. */
  | { readonly kind: 'message'; readonly message: TimedMessageId; readonly minutes: number; readonly until: string };

/** Messages that say how long to wait: wrong user codes from an address, failed sign-ins. */
export type TimedMessageId = 'too-many-attempts' | 'too-many-sign-ins';

export type MessageId = MessageView['message'];

export type PageView =
  | { readonly kind: 'enter-code'; readonly csrf: string; readonly userCode: string; readonly notice?: NoticeId }
  | {
      readonly kind: 'sign-in';
      readonly csrf: string;
      readonly userCode: string;
      readonly clientName: string;
      readonly username?: string;
      readonly notice?: NoticeId;
      /** Issue 35: the form asks for a one-time code (or a recovery code) too. */
      readonly askSecondFactor?: boolean;
      /** Issue 35, with `secondFactor.passkeys`: the options of a passwordless passkey sign-in (JSON). */
      readonly passkeyOptions?: string | undefined;
    }
  | {
      readonly kind: 'consent';
      readonly csrf: string;
      readonly userCode: string;
      readonly clientName: string;
      readonly scopes: readonly ScopeLine[];
      /** RFC 8707: the APIs the device named with `resource`; empty when none. */
      readonly resources?: readonly string[] | undefined;
      readonly username: string;
    }
  | { readonly kind: 'done'; readonly approved: boolean; readonly clientName: string }
  | MessageView;
