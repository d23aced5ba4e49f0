/**
 * What every page needs from the cookie secret, built once per app and shared by the sign-in
 * pages and the device page: the one cookie signer, the one CSRF signer and the sign-in
 * sessions (single sign-on: signing in on one page signs the browser in on the others).
 *
 * The secret (`cookie-secret.ts`) is loaded at start-up, where a sealed one that cannot be
 * opened stops the node.
 */
import type { ResolvedConfig } from '../config/schema.js';
import type { Clock } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import type { ContractState } from '../store/watched-contracts.js';
import { createBrowserCookies, type BrowserCookies } from './browser-cookie.js';
import { createCsrf, type Csrf } from './csrf.js';
import { createSignInSessions, type SignInSessions } from '../sessions/sign-in-sessions.js';

/** How long a sign-in lasts (IdentityServer's cookie default is 10 hours). */
export const sessionLifetimeSeconds = 10 * 3600;

export interface PageParts {
  readonly cookies: BrowserCookies;
  readonly csrf: Csrf;
  readonly sessions: SignInSessions;
}

export type LoadPageParts = () => Promise<PageParts>;

export function createPageParts({ config, store, clock, secret, contracts }: {
  config: Pick<ResolvedConfig, 'issuer'>; store: Store; clock: Clock; secret: Buffer; contracts: ContractState;
}): LoadPageParts {
  // The cookie covers every page under the issuer: /connect/authorize..., /connect/endsession, /device.
  // On https it is a __Host- cookie, which must say Path=/ (`browser-cookie.ts`); no page needs a narrower one.
  const path = new URL(config.issuer).pathname.replace(/\/$/, '') || '/';
  let parts: Promise<PageParts> | undefined;
  return function pageParts() {
    parts ??= Promise.resolve({
      cookies: createBrowserCookies({ secret, secure: config.issuer.startsWith('https:'), path }),
      csrf: createCsrf(secret),
      sessions: createSignInSessions({ store, clock, lifetimeSeconds: sessionLifetimeSeconds, contracts }),
    });
    return parts;
  };
}
