/**
 * Who owns which field of a registered client. The registrant owns what its RFC 7591 §2 metadata
 * maps to (`client-metadata.ts`); every other field — consent, PAR, lifetimes, CORS origins,
 * properties, ... — is the operator's, set with `svc clients update`, and a registrant's `PUT`
 * (RFC 7592 §2.2: the metadata sent replaces the client's) leaves it as it is.
 *
 * Three requirements either may set: `requireDPoP` (the registrant's `dpop_bound_access_tokens`,
 * RFC 9449 §5.2), `requireCertificateBoundTokens` (`tls_client_certificate_bound_access_tokens`,
 * RFC 8705 §3.4) and `requireRequestObject` (`require_signed_request_object`, RFC 9101 §10.5). A registrant may add one and take back only what it asked for itself: a
 * property records that the registrant asked for it, and an operator who names the field takes
 * it over (`operatorUpdate`).
 */

/** The fields a registrant's metadata sets; absent from a `PUT`, they take their defaults. */
export const registrantFields = [
  'clientName', 'allowedGrantTypes', 'allowedScopes', 'allowOfflineAccess', 'redirectUris', 'tokenEndpointAuthMethods',
  'requireClientSecret', 'allowedIdentityTokenSigningAlgorithms', 'backchannelLogoutUri', 'backchannelLogoutSessionRequired',
] as const;

/** A requirement a registrant may ask for, and the property saying it did. */
const requirements = {
  requireDPoP: 'registration.dpop_bound_access_tokens',
  requireCertificateBoundTokens: 'registration.tls_client_certificate_bound_access_tokens',
  requireRequestObject: 'registration.require_signed_request_object',
} as const;

/** Marks every registered client; what the sign-in pages read to treat it as self-asserted. */
const registeredProperty = 'registered';

type Definition = Readonly<Record<string, unknown>>;

const propertiesOf = (d: Definition): Record<string, string> => ({ ...((d.properties as Record<string, string> | undefined) ?? {}) });

/**
 * The stored definition of a registration (`current` undefined) or of a `PUT` (`current` the
 * stored one): the registrant's fields from `requested` (what `definitionFromMetadata` made),
 * the operator's from `current`.
 */
export function registeredDefinition(requested: Definition, current: Definition = {}): Record<string, unknown> {
  const next: Record<string, unknown> = {};
  // The operator's fields stay; the registrant's are replaced wholesale.
  for (const [field, value] of Object.entries(current)) {
    if (!(registrantFields as readonly string[]).includes(field) && !(field in requirements) && field !== 'properties') next[field] = value;
  }
  for (const field of registrantFields) if (requested[field] !== undefined) next[field] = requested[field];
  // A client registered without a method is not pinned, and reads `client_secret_basic` back (the
  // RFC 7591 §2 default); sending that back (RFC 7592 §2.2) keeps it unpinned, so a client that
  // sends its secret in the body is not refused after its update.
  const readBackDefault = Array.isArray(requested.tokenEndpointAuthMethods) && requested.tokenEndpointAuthMethods.length === 1
    && requested.tokenEndpointAuthMethods[0] === 'client_secret_basic';
  if ('properties' in current && current.tokenEndpointAuthMethods === undefined && readBackDefault) delete next.tokenEndpointAuthMethods;
  const properties = propertiesOf(current);
  for (const [field, marker] of Object.entries(requirements)) {
    const registrantHad = properties[marker] === 'true';
    // What the operator set, if anything: the current value unless the registrant asked for it.
    const operatorValue = registrantHad ? undefined : current[field];
    const asked = requested[field] === true;
    delete properties[marker];
    if (asked && operatorValue !== true) properties[marker] = 'true';
    const value = asked ? true : operatorValue;
    if (value !== undefined) next[field] = value;
  }
  properties[registeredProperty] = 'true';
  next.properties = properties;
  return next;
}

/**
 * An operator's update (`svc clients update`) of any client: a requirement it names becomes the
 * operator's, so a registrant's later `PUT` no longer takes it back.
 */
export function operatorUpdate(definition: Record<string, unknown>, changes: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const properties = definition.properties as Record<string, string> | undefined;
  if (properties === undefined || 'properties' in changes) return definition;
  const kept = { ...properties };
  for (const [field, marker] of Object.entries(requirements)) if (field in changes) delete kept[marker];
  return { ...definition, properties: kept };
}
