/**
 * Start-up checks of the ID token algorithms: the service's `signing.idTokenAlgorithms` and a
 * client's `allowedIdentityTokenSigningAlgorithms`, which must name one of them (the service
 * keeps keys only for those). Each message names the field.
 */
import type { FieldChecks, Problems } from './problems.js';

export const idTokenSigningClientFields = ['allowedIdentityTokenSigningAlgorithms'] as const;

/** OpenID Connect Discovery §3: `id_token_signing_alg_values_supported` must include RS256. */
const requiredAlgorithm = 'RS256';

/** The algorithms of `signing.idTokenAlgorithms` as far as they can be read: what clients are checked against. */
export function offeredIdTokenAlgorithms(signing: unknown, fallback: readonly string[]): readonly string[] {
  const list = typeof signing === 'object' && signing !== null ? (signing as Record<string, unknown>).idTokenAlgorithms : undefined;
  return Array.isArray(list) ? list.filter((a): a is string => typeof a === 'string') : fallback;
}

export function checkIdTokenAlgorithms(p: Problems, value: unknown, algorithms: readonly string[], { stringList }: Pick<FieldChecks, 'stringList'>): void {
  if (value === undefined) return;
  const path = 'signing.idTokenAlgorithms';
  const list = stringList(p, path, value, false);
  list.forEach((alg, i) => {
    if (!algorithms.includes(alg)) p.add(`${path}[${i}]`, `unknown algorithm "${alg}" (allowed: ${algorithms.join(', ')})`);
    else if (list.indexOf(alg) !== i) p.add(`${path}[${i}]`, `"${alg}" is listed twice`);
  });
  if (Array.isArray(value) && !list.includes(requiredAlgorithm)) {
    p.add(path, `must include "${requiredAlgorithm}", the algorithm every OpenID Connect client accepts (OpenID Connect Discovery §3), e.g. ["RS256", "ES256"]`);
  }
}

export function checkIdTokenSigningClient(p: Problems, at: string, c: Record<string, unknown>, offered: readonly string[], { stringList }: Pick<FieldChecks, 'stringList'>): void {
  const path = `${at}.allowedIdentityTokenSigningAlgorithms`;
  stringList(p, path, c.allowedIdentityTokenSigningAlgorithms, false).forEach((alg, i) => {
    if (!offered.includes(alg)) {
      p.add(`${path}[${i}]`, `"${alg}" is not one of signing.idTokenAlgorithms (${offered.join(', ')}); the service has keys for those only, so add it there`);
    }
  });
}
