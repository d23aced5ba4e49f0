/**
 * Which `aud` values an assertion may carry. RFC 10070 (updating RFC 7523 §3): the issuer
 * identifier, as the single audience value. Older clients send the token endpoint URL; `compat`
 * accepts that too, unless the assertion is explicitly typed `client-authentication+jwt`,
 * which only RFC 10070 clients send.
 */
import type { AssertionAudienceForm, Client, EndpointUrls, SecretHolder } from 'svc/sdk';
import type { AudienceMode } from './options.js';
import { CLIENT_AUTHENTICATION_TYP, isExplicitlyTyped } from './typ.js';
import { underFapi2 } from './fapi2.js';

export const AUDIENCE_PROPERTY = 'privateKeyJwt.audience';
/** Client properties under this prefix belong to this plugin; an unknown one is a typo, refused at start-up. */
const PROPERTY_PREFIX = 'privateKeyJwt.';

/**
 * Throws naming the field when a client's `privateKeyJwt.audience` property is neither `strict`
 * nor `compat`, or when the client has another `privateKeyJwt.*` property (a misspelt key would
 * otherwise leave the client silently on the global rule).
 */
export function checkAudienceProperties(clients: readonly Client[]): void {
  clients.forEach((client, index) => {
    for (const [name, value] of Object.entries(client.properties)) {
      const field = `plugin private-key-jwt: clients[${index}] ("${client.clientId}") properties["${name}"]`;
      if (name === AUDIENCE_PROPERTY) {
        if (value !== 'strict' && value !== 'compat') {
          throw new Error(`${field}: expected "strict" or "compat", found ${JSON.stringify(value)}`);
        }
      } else if (name.toLowerCase().startsWith(PROPERTY_PREFIX.toLowerCase())) {
        throw new Error(`${field}: unknown private-key-jwt property; the only one is "${AUDIENCE_PROPERTY}"`);
      }
    }
  });
}

/** Which form an assertion's `aud` takes, whatever the rule: counted per client so an operator sees who is ready for strict. */
export function audienceForm(aud: unknown, urls: EndpointUrls): AssertionAudienceForm {
  const single = typeof aud === 'string' ? aud : Array.isArray(aud) && aud.length === 1 ? aud[0] : undefined;
  if (single === urls.issuer) return 'issuer';
  if (single === urls.token) return 'token_endpoint';
  return 'other';
}

export interface AudienceRule {
  readonly mode: AudienceMode;
  /** Why this mode applies, for the log. */
  readonly because: string;
  readonly accepted: readonly string[];
}

export function audienceRule(
  typ: string | undefined,
  holder: SecretHolder,
  globalMode: AudienceMode,
  urls: EndpointUrls,
  endpoint: string,
): AudienceRule {
  const property = holder.kind === 'client' ? holder.client.properties[AUDIENCE_PROPERTY] : undefined;
  let mode: AudienceMode;
  let because: string;
  if (isExplicitlyTyped(typ)) {
    [mode, because] = ['strict', `typ ${CLIENT_AUTHENTICATION_TYP}`];
  } else if (holder.kind === 'client' && underFapi2(holder.client)) {
    // FAPI 2.0 Security Profile §5.3.2.1: the issuer identifier is the only audience accepted.
    [mode, because] = ['strict', `FAPI 2.0 (client fapi2 ${holder.client.fapi2})`];
  } else if (property !== undefined) {
    // An unknown value (rejected at start-up) would fall to strict here: fail closed.
    [mode, because] = [property === 'compat' ? 'compat' : 'strict', `client property ${AUDIENCE_PROPERTY}`];
  } else {
    [mode, because] = [globalMode, 'plugin option audience'];
  }
  const endpointUrl = urls.byEndpoint[endpoint];
  const accepted =
    mode === 'strict' ? [urls.issuer] : [...new Set([urls.issuer, urls.token, ...(endpointUrl === undefined ? [] : [endpointUrl])])];
  return { mode, because, accepted };
}
