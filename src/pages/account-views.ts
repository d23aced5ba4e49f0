/** What the password change page (`src/account/`) shows, as plain data; ids, not text, worded per language. */
import type { BrokenPasswordRule } from '../config/password-rules.js';
import type { MessageView } from './device-views.js';

export type AccountNoticeId = 'fields-missing' | 'credentials-wrong' | 'mismatch' | 'not-changeable' | 'same-password';

export type AccountView =
  | { readonly kind: 'change-password'; readonly csrf: string; readonly username?: string; readonly notice?: AccountNoticeId; readonly broken?: BrokenPasswordRule }
  | { readonly kind: 'password-changed' }
  /** The device page's messages, in the same words. */
  | MessageView;
