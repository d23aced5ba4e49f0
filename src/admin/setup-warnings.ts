/**
 * What the operator most likely got wrong when the admin API starts, said once in the log: a
 * listener off loopback (it speaks plain HTTP, so tokens would cross the network in clear), and
 * no API resource through which a token could reach it (every call would be refused). Behind
 * mutual TLS (`admin.tls`) neither applies: the listener is HTTPS and certificates are the
 * credentials.
 */
import type { ApiResource } from '../config/schema.js';
import { adminApiResource, adminScopes } from './authentication.js';

/** 127.0.0.0/8, ::1, or `localhost`: what no other machine reaches. */
const onLoopback = (host: string): boolean => /^(localhost|::1|127(\.\d{1,3}){3})$/i.test(host.replace(/^\[|\]$/g, ''));

export function adminSetupWarnings(host: string, resource: ApiResource | undefined, mutualTls = false): string[] {
  const warnings: string[] = [];
  if (mutualTls) return warnings;
  if (!onLoopback(host)) {
    warnings.push(`the admin API listens on ${host}, beyond loopback, in plain HTTP: keep it where only operators reach it, behind their own TLS (docs/guides/admin-api.md)`);
  }
  if (!resource || !resource.scopes.some((s) => s === adminScopes.full || s === adminScopes.read)) {
    warnings.push(`no API resource "${adminApiResource}" with scope "${adminScopes.full}" or "${adminScopes.read}": no token can call the admin API (docs/guides/admin-api.md, "The admin client")`);
  }
  return warnings;
}
