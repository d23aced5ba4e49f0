/**
 * Form parameters as flat strings. The body is parsed with URLSearchParams, never `qs`, so
 * `a[]=1` and `a.b=1` stay literal names with string values.
 */
import type { ParameterDeclaration } from '../sdk/contracts.js';
import { InvalidRequest } from './errors.js';

/**
 * The caps of `client_id` and `scope`, which every endpoint reads, the authorization endpoint's
 * request checks (`src/authorize/authorization-request.ts`) included.
 */
export const clientIdMaxLength = 100;
export const scopeMaxLength = 300;
/**
 * `id_token_hint`: an ID token with its claims can outgrow the default cap. The end-session
 * endpoint (RP-Initiated Logout) allows this much; the authorization request keeps a tighter cap
 * of its own (`authorization-request.ts`).
 */
export const idTokenHintMaxLength = 16_384;

/**
 * The host's own parameters: its endpoints' and its device page's (IdentityServer's caps where it
 * has them). Grants and secret parsers declare theirs (`ParameterDeclaration`); the table of
 * every cap is built from both at start-up.
 */
export const hostParameters: readonly ParameterDeclaration[] = [
  { name: 'client_id', maxLength: clientIdMaxLength },
  { name: 'grant_type', maxLength: 200 },
  { name: 'scope', maxLength: scopeMaxLength },
  { name: 'token', maxLength: 16_384, secret: true },
  { name: 'user_code', maxLength: 100, secret: true },
  { name: 'username', maxLength: 100 },
  { name: 'password', maxLength: 100, secret: true },
  { name: 'id_token_hint', maxLength: idTokenHintMaxLength, secret: true },
];
/** Cap for any other parameter. */
export const defaultParameterCap = 2048;

/**
 * Parameters that may be sent more than once: RFC 8707 §2's `resource`, one per API. Their values
 * are kept in the one map entry joined by a newline, which no absolute URI contains (RFC 3986);
 * read them with `repeatedValues`.
 */
export const repeatableParameters: ReadonlySet<string> = new Set(['resource']);
const repeatSeparator = '\n';

/** A repeatable parameter's values as one map entry (what the form parser makes of `resource=a&resource=b`). */
export function joinRepeated(values: readonly string[]): string {
  return values.join(repeatSeparator);
}

/** Every value of a repeatable parameter, in the order sent; none when it was not sent. */
export function repeatedValues(params: ReadonlyMap<string, string>, name: string): string[] {
  const joined = params.get(name);
  return joined === undefined ? [] : joined.split(repeatSeparator);
}

/** Every declared parameter's cap, and which are credentials; built once at start-up. */
export interface ParameterTable {
  readonly caps: ReadonlyMap<string, number>;
  /** Parameters that never reach a grant, a log line or an event. */
  readonly credentials: ReadonlySet<string>;
  /** Parameters redacted from every log line: the credentials and the declared secrets. */
  readonly secrets: ReadonlySet<string>;
}

/**
 * Merges declarations: a name declared by several contributions gets the largest cap, and is a
 * credential (or a secret) when any of them says so (the safe reading of a disagreement).
 */
export function buildParameterTable(declarations: Iterable<ParameterDeclaration>): ParameterTable {
  const caps = new Map<string, number>();
  const credentials = new Set<string>();
  const secrets = new Set<string>();
  for (const { name, maxLength, credential, secret } of declarations) {
    caps.set(name, Math.max(caps.get(name) ?? 0, maxLength));
    if (credential === true) credentials.add(name);
    if (credential === true || secret === true) secrets.add(name);
  }
  return { caps, credentials, secrets };
}

/** The host's parameters alone: for forms no contribution reads (the device page). */
export const hostParameterTable: ParameterTable = buildParameterTable(hostParameters);

/**
 * Parses `application/x-www-form-urlencoded` text. Rejects a parameter given twice
 * (RFC 6749 §3.2) unless it is repeatable (`repeatableParameters`), and values over their cap;
 * drops empty values, which RFC 6749 §3.1 says are treated as omitted.
 */
export function parseFormParams(body: string, maxParameters: number, table: ParameterTable = hostParameterTable): Map<string, string> {
  const params = new Map<string, string>();
  const seen = new Set<string>();
  let count = 0;
  for (const [name, value] of new URLSearchParams(body)) {
    if (++count > maxParameters) throw new InvalidRequest(`Too many parameters (at most ${maxParameters}).`);
    if (seen.has(name) && !repeatableParameters.has(name)) {
      throw new InvalidRequest(`${describeParameter(name, table)} is included more than once.`, { logDetail: `parameter ${logName(name)} given twice` });
    }
    seen.add(name);
    const cap = table.caps.get(name) ?? defaultParameterCap;
    if (value.length > cap) {
      throw new InvalidRequest(`${describeParameter(name, table)} is too long (at most ${cap} characters).`, {
        logDetail: `parameter ${logName(name)} has ${value.length} characters`,
      });
    }
    if (value === '') continue;
    if (!repeatableParameters.has(name)) {
      params.set(name, value);
      continue;
    }
    // A line break inside one value becomes a space, which no URI holds either: the value stays
    // one (malformed) value for its endpoint to refuse, rather than splitting into two.
    const one = value.replaceAll(repeatSeparator, ' ');
    const earlier = params.get(name);
    params.set(name, earlier === undefined ? one : earlier + repeatSeparator + one);
  }
  return params;
}

/**
 * How a description refers to a parameter: by name when it is a declared one (our own word, not
 * the caller's), else generically, so a description never echoes the request.
 */
function describeParameter(name: string, table: ParameterTable): string {
  return table.caps.has(name) ? `Parameter ${name}` : 'A parameter';
}

/** A parameter name for the log: quoted, short. */
function logName(name: string): string {
  const quoted = JSON.stringify(name);
  return quoted.length > 60 ? `${quoted.slice(0, 60)}...` : quoted;
}
