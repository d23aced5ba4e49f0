/**
 * One trusted issuer's verification keys, fetched (discovery document, then JWK Set; or the JWK
 * Set URL directly) and kept by `kid`. The rules that keep a key fetch off the hot path and an
 * issuer's outage its own:
 *
 * - Keys are used for `cacheTime`, then fetched again on the next request that needs them.
 * - A `kid` the set lacks (the issuer rotated its keys) fetches at once — unless this issuer was
 *   fetched less than `minRefreshInterval` ago, so a stream of made-up `kid`s costs one fetch a
 *   minute, not one a request.
 * - A failed fetch is not retried before `minRefreshInterval` either, and the keys fetched last
 *   stay in use meanwhile: an issuer that is down delays at most one request per interval, by at
 *   most `fetchTimeout`, and never touches another issuer's clients.
 * - Concurrent requests share one fetch.
 */
import type { Clock, JwsAlgorithm, Logger } from 'svc/sdk';
import type { FetchJson } from './fetch-json.js';
import { parseJwks, type IssuerKey } from './jwks.js';
import { checkFetchUrl, type TrustedIssuer } from './options.js';

export interface KeySetSettings {
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  readonly fetchJson: FetchJson;
  readonly fetchTimeout: number;
  readonly cacheTime: number;
  readonly minRefreshInterval: number;
  readonly allowLoopback: boolean;
}

export type KeyLookup = { readonly keys: readonly IssuerKey[] } | { readonly problem: string };

const iso = (ms: number): string => new Date(ms).toISOString();

export class IssuerKeySet {
  readonly #issuer: TrustedIssuer;
  readonly #settings: KeySetSettings;
  #keys: readonly IssuerKey[] | undefined;
  #fetchedAt = -Infinity;
  #attemptedAt = -Infinity;
  #lastError: string | undefined;
  #inFlight: Promise<void> | undefined;

  constructor(issuer: TrustedIssuer, settings: KeySetSettings) {
    this.#issuer = issuer;
    this.#settings = settings;
    if (issuer.keys.kind === 'static') this.#keys = issuer.keys.keys;
  }

  /** The keys with this `kid` (all keys when the token names none), or why there are none. */
  async keysFor(kid: string | undefined): Promise<KeyLookup> {
    if (this.#issuer.keys.kind !== 'static') {
      const now = this.#settings.clock.now();
      const stale = this.#keys === undefined || now - this.#fetchedAt >= this.#settings.cacheTime * 1000;
      if (stale && this.#mayFetch(now)) await this.#refresh();
      else if (kid !== undefined && this.#keys !== undefined && !this.#keys.some((k) => k.kid === kid) && this.#mayFetch(now)) {
        // RFC 7517 §4.5: an unknown kid is how a key rotation first shows.
        await this.#refresh();
      }
    }
    if (this.#keys === undefined) {
      return { problem: `the keys of issuer ${JSON.stringify(this.#issuer.issuer)} are unavailable (${this.#lastError ?? 'not fetched yet'}; next fetch not before ${iso(this.#attemptedAt + this.#settings.minRefreshInterval * 1000)})` };
    }
    const keys = kid === undefined ? this.#keys : this.#keys.filter((k) => k.kid === kid);
    if (keys.length === 0) {
      const when = this.#issuer.keys.kind === 'static' ? 'configured jwks' : `key set fetched at ${iso(this.#fetchedAt)}`;
      return { problem: `issuer ${JSON.stringify(this.#issuer.issuer)} has no key with kid ${JSON.stringify(kid)} (${when})` };
    }
    return { keys };
  }

  #mayFetch(now: number): boolean {
    return now - this.#attemptedAt >= this.#settings.minRefreshInterval * 1000;
  }

  #refresh(): Promise<void> {
    this.#inFlight ??= this.#fetch().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  async #fetch(): Promise<void> {
    const { clock, logger, fetchJson, fetchTimeout, allowLoopback } = this.#settings;
    const source = this.#issuer.keys;
    this.#attemptedAt = clock.now();
    const options = { timeoutMs: fetchTimeout * 1000, tlsCa: this.#issuer.tlsCa };
    let step = source.kind === 'discovery' ? `discovery document ${source.url.href}` : 'key set';
    try {
      let jwksUrl: URL;
      if (source.kind === 'discovery') {
        const document = (await fetchJson(source.url, options)) as Record<string, unknown> | null;
        // OpenID Connect Discovery 1.0 §4.3: the document must name the very issuer it was fetched for.
        if (document?.issuer !== this.#issuer.issuer) throw new Error(`its issuer is ${JSON.stringify(document?.issuer)}`);
        try {
          jwksUrl = checkFetchUrl(document.jwks_uri, 'jwks_uri', allowLoopback);
        } catch (error) {
          throw new Error(`jwks_uri: ${(error as Error).message}`);
        }
      } else if (source.kind === 'jwksUri') {
        jwksUrl = source.url;
      } else {
        return;
      }
      step = `key set ${jwksUrl.href}`;
      const keys = parseJwks(await fetchJson(jwksUrl, options), this.#issuer.algorithms as JwsAlgorithm[]);
      this.#keys = Object.freeze(keys);
      this.#fetchedAt = clock.now();
      this.#lastError = undefined;
      logger.info({ issuer: this.#issuer.issuer, keys: keys.map((k) => k.kid ?? '(no kid)') }, 'workload-identity: fetched issuer keys');
    } catch (error) {
      this.#lastError = `${step}: ${(error as Error).message}`;
      logger.warn({ issuer: this.#issuer.issuer, problem: this.#lastError, usingCachedKeys: this.#keys !== undefined }, 'workload-identity: fetching issuer keys failed');
    }
  }
}
