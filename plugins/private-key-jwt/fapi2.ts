/**
 * A client under the FAPI 2.0 profile (the SDK's `Client.fapi2`, its own or the global setting):
 * its assertions are signed with PS256, ES256 or EdDSA only (FAPI 2.0 Security Profile §5.4),
 * and their `aud` is the issuer only (§5.3.2.1, `audience.ts`).
 */
import type { Client } from 'svc/sdk';

// `Ed25519` is RFC 9864's name for EdDSA with the curve §5.4 names.
export const FAPI2_ALGORITHMS: readonly string[] = ['PS256', 'ES256', 'EdDSA', 'Ed25519'];

export function underFapi2(client: Client): boolean {
  return client.fapi2 !== undefined && client.fapi2 !== 'off';
}
