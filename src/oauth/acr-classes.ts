/**
 * The service's authentication context classes (OIDC Core §2 `acr`, issue 35) and how they
 * compare: `mfa` (two factors) meets a demand for `pwd` (a password), never the other way. Used
 * where a sign-in is asked for (the authorize flow) and where a token's sign-in is judged (the
 * token endpoint for an API's `requiredAcr`, UserInfo's `userInfo.requiredAcr`).
 */

export const acrPassword = 'pwd';
export const acrMultiFactor = 'mfa';
export const acrValuesSupported: readonly string[] = [acrPassword, acrMultiFactor];

/** The class a session's methods (RFC 8176 `amr`) meet: `mfa` with a second factor, `pwd` with a password, else none. */
export function acrOf(amr: readonly string[] | undefined): string | undefined {
  if (amr?.includes('mfa')) return acrMultiFactor;
  return amr?.includes('pwd') ? acrPassword : undefined;
}

/** 2 for `mfa`, 1 for `pwd`, 0 for anything else (an upstream sign-in's, none). */
export const acrRank = (acr: string | undefined): number => (acr === acrMultiFactor ? 2 : acr === acrPassword ? 1 : 0);

/**
 * Whether a token's sign-in meets the class `required` (RFC 9470 step-up): judged by its `amr`
 * (a session asked for `pwd` that gave a second factor reports `acr` `pwd`, but its `amr` says
 * `mfa`), else by its `acr`.
 */
export function meetsAcr(required: string, signIn: { readonly acr?: unknown; readonly amr?: unknown }): boolean {
  const amr = Array.isArray(signIn.amr) ? signIn.amr.filter((m): m is string => typeof m === 'string') : undefined;
  const met = Math.max(acrRank(acrOf(amr)), acrRank(typeof signIn.acr === 'string' ? signIn.acr : undefined));
  return met >= acrRank(required);
}

/** The strongest of some required classes (`mfa` over `pwd`), or undefined for none. */
export function strongestAcr(required: ReadonlyArray<string | undefined>): string | undefined {
  return required.reduce<string | undefined>((best, acr) => (acrRank(acr) > acrRank(best) ? acr : best), undefined);
}
