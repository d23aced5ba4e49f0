/** What the sign-in pages show, as plain data; `src/http/sign-in-page` renders it. */
import type { ScopeLine } from '../device/page-views.js';

export type SignInView =
  | {
      readonly kind: 'sign-in';
      readonly interaction: string;
      readonly csrf: string;
      readonly clientId: string;
      readonly clientName: string;
      readonly username?: string | undefined;
      readonly message?: string;
    }
  | {
      readonly kind: 'consent';
      readonly interaction: string;
      readonly csrf: string;
      readonly clientName: string;
      readonly scopes: readonly ScopeLine[];
      readonly username: string;
    }
  | { readonly kind: 'logout'; readonly csrf: string; readonly fields: ReadonlyArray<readonly [string, string]> }
  | { readonly kind: 'message'; readonly title: string; readonly text: string };
