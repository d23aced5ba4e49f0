/**
 * `plugins["private-key-jwt"]` in `svc.config.ts`. Every option is optional; defaults below.
 *
 * @example
 * plugins: { 'private-key-jwt': { clockSkew: 30, maxLifetime: 600, audience: 'compat' } }
 */
import { OptionsError } from 'svc/sdk';
import { SUPPORTED_ALGORITHMS, isSupportedAlgorithm, type SupportedAlgorithm } from './algorithms.js';

export type AudienceMode = 'strict' | 'compat';

export interface PrivateKeyJwtOptions {
  /** Seconds of tolerance for `exp`, `nbf`, `iat` and the lifetime limit. Default 60. */
  readonly clockSkew: number;
  /** Longest accepted assertion lifetime in seconds: `exp − iat` (or `exp − now`). Default 3600. */
  readonly maxLifetime: number;
  /**
   * `"strict"` (default, RFC 10070): `aud` must be the issuer identifier alone. `"compat"` also
   * accepts the token endpoint URL or the URL of the endpoint being called, as RFC 7523 clients send.
   */
  readonly audience: AudienceMode;
  /** Accepted JWS algorithms, advertised in discovery. Default: all of `SUPPORTED_ALGORITHMS`. */
  readonly algorithms: readonly SupportedAlgorithm[];
}

export const DEFAULT_OPTIONS: PrivateKeyJwtOptions = Object.freeze({
  clockSkew: 60,
  maxLifetime: 3600,
  audience: 'strict',
  algorithms: Object.freeze([...SUPPORTED_ALGORITHMS]),
});

const optionNames = Object.keys(DEFAULT_OPTIONS);

function invalid(name: string, expected: string, found: unknown): OptionsError {
  return new OptionsError(name, `expected ${expected}, found ${JSON.stringify(found) ?? String(found)}`);
}

/** The plugin's options parser (run once by the host); a bad or unknown option stops start-up naming it. */
export function readOptions(raw: Readonly<Record<string, unknown>>): PrivateKeyJwtOptions {
  for (const name of Object.keys(raw)) {
    if (!optionNames.includes(name)) {
      throw new OptionsError(name, `unknown option; expected one of ${optionNames.join(', ')}`);
    }
  }
  const { clockSkew = DEFAULT_OPTIONS.clockSkew, maxLifetime = DEFAULT_OPTIONS.maxLifetime } = raw;
  const { audience = DEFAULT_OPTIONS.audience, algorithms = DEFAULT_OPTIONS.algorithms } = raw;

  if (typeof clockSkew !== 'number' || !Number.isFinite(clockSkew) || clockSkew < 0) {
    throw invalid('clockSkew', 'a non-negative number of seconds', clockSkew);
  }
  if (typeof maxLifetime !== 'number' || !Number.isFinite(maxLifetime) || maxLifetime <= 0) {
    throw invalid('maxLifetime', 'a positive number of seconds', maxLifetime);
  }
  if (audience !== 'strict' && audience !== 'compat') {
    throw invalid('audience', '"strict" or "compat"', audience);
  }
  if (
    !Array.isArray(algorithms) ||
    algorithms.length === 0 ||
    !algorithms.every(isSupportedAlgorithm) ||
    new Set(algorithms).size !== algorithms.length
  ) {
    throw invalid('algorithms', `a non-empty list of distinct values from ${SUPPORTED_ALGORITHMS.join(', ')}`, algorithms);
  }
  return Object.freeze({ clockSkew, maxLifetime, audience, algorithms: Object.freeze([...algorithms]) });
}
