/**
 * The `"open"` registration policy (issue 36): what an anonymous caller — an MCP client, which
 * cannot get an initial access token — may register. The deployment's `registration` settings,
 * narrowed: a public client only (`token_endpoint_auth_method` `none`, so PKCE, which every
 * public client needs), the code flow (and refresh tokens where `offline_access` is allowed),
 * redirect URIs on https or a loopback address (RFC 8252 §7.3). Its consent is never remembered
 * (`authorize/consent-policy.ts`) and it is removed when unused (`unused-registrations.ts`).
 */
import type { ResolvedConfig } from '../../config/schema.js';

type Policy = ResolvedConfig['registration'];

/** Marks an anonymously registered client: its consent is asked every time, it expires when unused. */
export const openRegistrationProperty = 'registration.open';

const openGrantTypes = ['authorization_code', 'refresh_token'];

export function openPolicyOf(policy: Policy): Policy {
  return {
    ...policy,
    allowedGrantTypes: policy.allowedGrantTypes.filter((g) => openGrantTypes.includes(g)),
    allowedAuthMethods: ['none'],
    redirectUris: 'https-or-loopback',
  };
}

/**
 * The metadata as the open policy reads it: a registrant that names no method means `none`, the
 * only one it may have (RFC 7591 §2's default, `client_secret_basic`, would only be refused).
 */
export function openMetadata(body: Record<string, unknown>): Record<string, unknown> {
  return body.token_endpoint_auth_method === undefined ? { ...body, token_endpoint_auth_method: 'none' } : body;
}

/** The client was registered anonymously. */
export function isOpenRegistration(definition: Readonly<Record<string, unknown>>): boolean {
  const properties = definition.properties as Record<string, string> | undefined;
  return properties?.[openRegistrationProperty] === 'true';
}
