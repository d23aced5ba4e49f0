/**
 * Redirect URI matching (RFC 9700 §2.1: exact string comparison), with the one exception
 * RFC 8252 §7.3 makes for native apps: a loopback redirect URI may use any port, because the
 * app binds whatever port is free when it starts.
 */
import type { Client } from '../config/schema.js';
import { isLoopbackHost } from '../config/redirect-uri-rules.js';

const loopbackIpHosts = new Set(['127.0.0.1', '[::1]']);

function withoutPort(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  // Only IP literals: RFC 8252 §8.3 says `localhost` may resolve elsewhere.
  if (url.protocol !== 'http:' || !loopbackIpHosts.has(url.hostname)) return undefined;
  url.port = '';
  return url.href;
}

export function isRegisteredRedirectUri(client: Client, uri: string): boolean {
  if (client.redirectUris.includes(uri)) return true;
  const portless = withoutPort(uri);
  return portless !== undefined && client.redirectUris.some((r) => withoutPort(r) === portless);
}

export { isLoopbackHost };
