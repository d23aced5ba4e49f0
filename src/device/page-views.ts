/** What each step of the verification page shows, as plain data; `src/http/device-page` renders it. */

export interface ScopeLine {
  readonly name: string;
  readonly description: string | undefined;
}

export type PageView =
  | { readonly kind: 'enter-code'; readonly csrf: string; readonly userCode: string; readonly message?: string }
  | {
      readonly kind: 'sign-in';
      readonly csrf: string;
      readonly userCode: string;
      readonly clientName: string;
      readonly username?: string;
      readonly message?: string;
    }
  | {
      readonly kind: 'consent';
      readonly csrf: string;
      readonly userCode: string;
      readonly clientName: string;
      readonly scopes: readonly ScopeLine[];
      readonly username: string;
    }
  | { readonly kind: 'done'; readonly approved: boolean; readonly clientName: string }
  | { readonly kind: 'message'; readonly title: string; readonly text: string };
