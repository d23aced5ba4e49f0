/**
 * Start-up checks of the DPoP settings (RFC 9449): the top-level `dpop` object and the client's
 * `requireDPoP`. Each message names the field.
 */
import { jwsAlgorithms } from '../sdk/jws.js';
import type { FieldChecks, Problems } from './problems.js';

export const dpopClientFields = ['requireDPoP'] as const;
const dpopFields = ['signingAlgValues', 'proofMaxAge', 'clockSkew', 'requireNonce', 'nonceLifetime'];

type Checks = FieldChecks & { isObject(value: unknown): value is Record<string, unknown> };

export function checkDpopClient(p: Problems, at: string, c: Record<string, unknown>, { bool }: Checks): void {
  bool(p, `${at}.requireDPoP`, c.requireDPoP);
}

export function checkDpop(p: Problems, value: unknown, { describe, bool, int, stringList, isObject }: Checks): void {
  if (value === undefined) return;
  if (!isObject(value)) return p.add('dpop', `expected an object, got ${describe(value)}`);
  for (const key of Object.keys(value)) if (!dpopFields.includes(key)) p.add(`dpop.${key}`, `unknown field (known: ${dpopFields.join(', ')})`);
  const algs = stringList(p, 'dpop.signingAlgValues', value.signingAlgValues, false);
  algs.forEach((alg, i) => {
    // RFC 9449 §4.2: an asymmetric algorithm only; no MAC, no `none`.
    if (!(jwsAlgorithms as readonly string[]).includes(alg)) {
      p.add(`dpop.signingAlgValues[${i}]`, `unknown or symmetric algorithm "${alg}" (allowed: ${jwsAlgorithms.join(', ')})`);
    }
  });
  if (Array.isArray(value.signingAlgValues) && value.signingAlgValues.length === 0) {
    p.add('dpop.signingAlgValues', 'expected at least one algorithm such as "ES256"');
  }
  int(p, 'dpop.proofMaxAge', value.proofMaxAge, 1, 3600);
  int(p, 'dpop.clockSkew', value.clockSkew, 0, 300);
  bool(p, 'dpop.requireNonce', value.requireNonce);
  int(p, 'dpop.nonceLifetime', value.nonceLifetime, 10, 86_400);
}
