/**
 * Which `aud` values an assertion may carry. RFC 10070 (updating RFC 7523 §3): the issuer
 * identifier, as the single audience value. Older clients send the token endpoint URL; `compat`
 * accepts that too, unless the assertion is explicitly typed `client-authentication+jwt`,
 * which only RFC 10070 clients send.
 */
import type { Client, EndpointUrls, SecretHolder } from 'svc/sdk';
import type { AudienceMode } from './options.js';
import { CLIENT_AUTHENTICATION_TYP, isExplicitlyTyped } from './typ.js';

export const AUDIENCE_PROPERTY = 'privateKeyJwt.audience';

/** Throws when a client's `privateKeyJwt.audience` property is neither `strict` nor `compat`. */
export function checkAudienceProperties(clients: readonly Client[]): void {
  for (const client of clients) {
    const value = client.properties[AUDIENCE_PROPERTY];
    if (value !== undefined && value !== 'strict' && value !== 'compat') {
      throw new Error(
        `plugin private-key-jwt: client "${client.clientId}" properties["${AUDIENCE_PROPERTY}"]: expected "strict" or "compat", found ${JSON.stringify(value)}`,
      );
    }
  }
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
