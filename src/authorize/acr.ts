/**
 * Authentication context classes (OIDC Core §2 `acr`, §3.1.2.1 `acr_values`, §5.5.1.1) and
 * methods (RFC 8176 `amr`) of the service's own sign-ins (issue 35). Two classes, named after
 * what they promise, listed in discovery's `acr_values_supported`:
 *
 * - `pwd`: one factor (a password);
 * - `mfa`: two factors (a password and a one-time code or a recovery code).
 *
 * `mfa` meets a request for `pwd` too. A sign-in at an upstream identity provider has neither
 * (its tokens carry no `acr`), and a request whose essential `acr` no sign-in here can meet is
 * refused (§5.5.1.1: "treat that outcome as a failed authentication attempt").
 */
import { acrMultiFactor, acrOf, acrPassword, acrRank as rank, acrValuesSupported } from '../oauth/acr-classes.js';
import { InvalidRequest } from '../oauth/errors.js';

export { acrMultiFactor, acrOf, acrPassword, acrValuesSupported, meetsAcr, strongestAcr } from '../oauth/acr-classes.js';

/** What the request asks for: `acr_values` (voluntary) or the `claims` parameter's `acr` (voluntary or essential). */
export interface AcrRequest {
  /** In order of preference. */
  readonly values: readonly string[];
  readonly essential: boolean;
}

/**
 * The `acr` a token reports for a session: the first requested class the session meets (so an
 * `mfa` session asked for `pwd` says `pwd`, one of the values asked for, §5.5.1.1), else the
 * class it has.
 */
export function reportedAcr(amr: readonly string[] | undefined, request: AcrRequest | undefined): string | undefined {
  const met = acrOf(amr);
  const asked = request?.values.find((v) => acrValuesSupported.includes(v) && rank(v) <= rank(met));
  return asked ?? met;
}

/**
 * Whether a second factor must be given for the request: `required` (the client's
 * `requireMfa`, or an essential `acr` only `mfa` meets), `wanted` (voluntary, `mfa` preferred),
 * or not at all. An essential request naming no class of ours is `unmeetable`.
 */
export function secondFactorDemand(request: AcrRequest | undefined, requireMfa: boolean): 'required' | 'wanted' | 'unmeetable' | undefined {
  if (requireMfa) return 'required';
  if (!request) return undefined;
  const ours = request.values.filter((v) => acrValuesSupported.includes(v));
  if (request.essential) {
    if (ours.length === 0) return 'unmeetable';
    return ours.includes(acrPassword) ? undefined : 'required';
  }
  return ours[0] === acrMultiFactor ? 'wanted' : undefined;
}

/**
 * The request's `acr` wishes, from `acr_values` (space-separated, voluntary; IdentityServer's
 * `idp:<name>` entries are for the upstream choice and ignored here) and from the `claims`
 * parameter (OIDC Core §5.5): `id_token.acr` or `userinfo.acr` with `essential`, `value` or
 * `values`. The `claims` member wins when both are sent. Only `acr` is read from `claims`.
 */
export function acrRequestOf(params: ReadonlyMap<string, string>): { acr?: AcrRequest } {
  const claims = params.get('claims');
  if (claims !== undefined) {
    const fromClaims = acrOfClaims(claims);
    if (fromClaims) return { acr: fromClaims };
  }
  const values = (params.get('acr_values') ?? '').split(' ').filter((v) => v !== '' && !v.startsWith('idp:'));
  return values.length === 0 ? {} : { acr: { values: values.slice(0, 10), essential: false } };
}

function acrOfClaims(text: string): AcrRequest | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidRequest('The claims parameter is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidRequest('The claims parameter must be a JSON object.');
  for (const member of ['id_token', 'userinfo'] as const) {
    const acr = ((parsed as Record<string, unknown>)[member] as Record<string, unknown> | undefined)?.acr;
    if (acr === undefined || acr === null) continue;
    if (typeof acr !== 'object' || Array.isArray(acr)) throw new InvalidRequest('The claims parameter\'s acr request is malformed.');
    const { essential, value, values } = acr as Record<string, unknown>;
    const list = typeof value === 'string' ? [value] : Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
    if (list.length === 0) continue;
    return { values: list.slice(0, 10), essential: essential === true };
  }
  return undefined;
}

/** What a code carries of the session's sign-in: its `amr` and the `acr` its tokens report. */
export function authenticationOf(amr: readonly string[] | undefined, request: AcrRequest | undefined): { amr?: readonly string[]; acr?: string } {
  const acr = reportedAcr(amr, request);
  return { ...(amr === undefined ? {} : { amr }), ...(acr === undefined ? {} : { acr }) };
}
