/** What the account pages (`src/account/`) show, as plain data; ids, not text, worded per language. */
import type { BrokenPasswordRule } from '../config/password-rules.js';
import type { MessageView } from './device-views.js';

export type AccountNoticeId = 'fields-missing' | 'credentials-wrong' | 'mismatch' | 'not-changeable' | 'same-password';

export type AccountView =
  | { readonly kind: 'change-password'; readonly csrf: string; readonly username?: string; readonly notice?: AccountNoticeId; readonly broken?: BrokenPasswordRule }
  | { readonly kind: 'password-changed' }
  /** Issue 34, "Forgot password?": ask for a link. */
  | { readonly kind: 'reset-request'; readonly csrf: string; readonly notice?: 'fields-missing' }
  /** The same whether an account matched or not. */
  | { readonly kind: 'reset-sent'; readonly minutes: number }
  | { readonly kind: 'reset-throttled'; readonly minutes: number }
  /** The mailed link, followed: the new password for `username`. */
  | { readonly kind: 'reset-form'; readonly csrf: string; readonly token: string; readonly username: string; readonly notice?: 'fields-missing' | 'mismatch'; readonly broken?: BrokenPasswordRule }
  | { readonly kind: 'reset-done' }
  | { readonly kind: 'reset-unusable' }
  /** The device page's messages, in the same words. */
  | MessageView;
