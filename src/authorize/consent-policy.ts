/**
 * When the user must see the consent page before a code is issued, and what that page must say
 * about the client. Three kinds of client are told apart:
 *
 * - an operator's client (config or client store): consent only with `requireConsent`, and a
 *   consent the user gave it earlier in this sign-in session is reused (OIDC Core §3.1.2.4);
 * - a self-registered client (RFC 7591, `properties.registered === 'true'`): its metadata is
 *   self-asserted (RFC 7591 §5), so consent is always required, whatever `requireConsent` says;
 *   a consent the user gave that client earlier is reused, but never for `offline_access`
 *   (OIDC Core §11: "a previously saved user consent is not always sufficient");
 * - a public client whose request returns to a custom scheme or a loopback address: any app on
 *   the device can claim those, so the server cannot be sure who it answers (RFC 8252 §8.6),
 *   and the request is treated "as if no previous request had been approved": consent every
 *   time, and `prompt=none` is `consent_required` (node-oidc-provider's `native_client_prompt`);
 * - issue 36: a client that registered anonymously (the `"open"` registration policy) or that is
 *   named by its metadata document: nobody vouches for it, and an agent registers anew on each
 *   machine, so a consent is never carried over: the page is shown every time.
 */
import type { Client } from '../config/schema.js';
import { isLoopbackHost } from '../config/redirect-uri-rules.js';
import type { AuthorizationRequest } from './authorization-request.js';

const offlineAccess = 'offline_access';

/** The client registered itself (RFC 7591): its name and redirect URIs are unverified. */
export function isSelfRegistered(client: Client): boolean {
  return client.properties.registered === 'true';
}

/** Properties that mark a client whose consent is never remembered (issue 36). */
export const alwaysAskProperties = ['metadataDocument', 'registration.open'] as const;

/** Issue 36: an anonymous registrant or a metadata document's client. */
export function isAlwaysAsked(client: Client): boolean {
  return alwaysAskProperties.some((p) => client.properties[p] === 'true');
}

/** RFC 8252 §7.1 and §7.3: a private-use URI scheme or an http(s) loopback address. */
export function isNativeRedirectUri(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return true;
  return isLoopbackHost(url.hostname);
}

/** RFC 8252 §8.6: a public client answered at a redirect URI any local app can claim. */
export function isUnprovableNativeClient(client: Client, redirectUri: string): boolean {
  return !client.requireClientSecret && isNativeRedirectUri(redirectUri);
}

export interface ConsentContext {
  /** Scopes the user consented to for this client earlier in the sign-in session. */
  readonly remembered: readonly string[];
  /** The user approved the consent page in this interaction. */
  readonly approvedNow: boolean;
}

export function needsConsent(request: AuthorizationRequest, client: Client, { remembered, approvedNow }: ConsentContext): boolean {
  if (approvedNow) return false;
  if (request.prompt.includes('consent')) return true;
  if (isUnprovableNativeClient(client, request.redirectUri)) return true;
  if (isAlwaysAsked(client)) return true;
  const registered = isSelfRegistered(client);
  if (!registered && !client.requireConsent) return false;
  if (registered && request.scopes.includes(offlineAccess)) return true;
  return !request.scopes.every((s) => remembered.includes(s));
}

/**
 * Where the browser goes after the consent page, as the page shows it: the host (with port) of
 * an http(s) URI, else the scheme of a native app's URI (`com.example.app`).
 */
export function redirectTargetOf(redirectUri: string): string {
  try {
    const url = new URL(redirectUri);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : url.protocol.slice(0, -1);
  } catch {
    return redirectUri;
  }
}
