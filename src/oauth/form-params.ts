/**
 * Form parameters as flat strings. The body is parsed with URLSearchParams, never `qs`, so
 * `a[]=1` and `a.b=1` stay literal names with string values.
 */
import { InvalidRequest } from './errors.js';

/** Longest accepted value per parameter (IdentityServer's caps where it has them). */
export const parameterCaps: Readonly<Record<string, number>> = {
  client_id: 100,
  client_secret: 100,
  scope: 300,
  grant_type: 200,
  username: 100,
  password: 100,
  client_assertion: 51_200,
  client_assertion_type: 200,
  token: 16_384,
  subject_token: 16_384,
  actor_token: 16_384,
  // RP-Initiated Logout: an ID token with its claims can outgrow the default cap.
  id_token_hint: 16_384,
  refresh_token: 100,
  device_code: 100,
  user_code: 100,
};
/** Cap for any other parameter. */
export const defaultParameterCap = 2048;

/**
 * Parses `application/x-www-form-urlencoded` text. Rejects a parameter given twice
 * (RFC 6749 §3.2) and values over their cap; drops empty values, which RFC 6749 §3.1 says are
 * treated as omitted.
 */
export function parseFormParams(body: string, maxParameters: number): Map<string, string> {
  const params = new Map<string, string>();
  const seen = new Set<string>();
  let count = 0;
  for (const [name, value] of new URLSearchParams(body)) {
    if (++count > maxParameters) throw new InvalidRequest(`Too many parameters (at most ${maxParameters}).`);
    if (seen.has(name)) {
      throw new InvalidRequest(`${describeParameter(name)} is included more than once.`, { logDetail: `parameter ${logName(name)} given twice` });
    }
    seen.add(name);
    if (value.length > (parameterCaps[name] ?? defaultParameterCap)) {
      throw new InvalidRequest(`${describeParameter(name)} is too long (at most ${parameterCaps[name] ?? defaultParameterCap} characters).`, {
        logDetail: `parameter ${logName(name)} has ${value.length} characters`,
      });
    }
    if (value !== '') params.set(name, value);
  }
  return params;
}

/**
 * How a description refers to a parameter: by name when it is one of the protocol's (our own
 * word, not the caller's), else generically, so a description never echoes the request.
 */
function describeParameter(name: string): string {
  return Object.hasOwn(parameterCaps, name) ? `Parameter ${name}` : 'A parameter';
}

/** A parameter name for the log: quoted, short. */
function logName(name: string): string {
  const quoted = JSON.stringify(name);
  return quoted.length > 60 ? `${quoted.slice(0, 60)}...` : quoted;
}
