/**
 * Clients named by the URL of their metadata document (issue 36), fetched on demand through the
 * guarded fetch and kept for as long as the document's `Cache-Control: max-age` says, within the
 * deployment's `minCacheSeconds`..`maxCacheSeconds` (the draft's §"Metadata Caching": honour
 * HTTP caching, but the server decides the bounds). A failure is remembered for
 * `minCacheSeconds` too, so a request cannot make the service fetch a broken URL again and
 * again. At most `maxEntries` documents are kept, the least recently asked dropped first.
 *
 * `resolve` (async) runs where a request first names a client: the authorization endpoint and
 * client authentication. `get` (sync) is what the rest of the flow reads, through the client
 * directory: the last good client for the id, even past its freshness, so a sign-in page left
 * open for minutes still finds its client; the next `resolve` fetches it again.
 */
import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { BootError } from '../../config/boot-error.js';
import type { Client, ResolvedConfig } from '../../config/schema.js';
import { addressMatcher } from '../../net/address-ranges.js';
import { createGuardedFetch, FetchRefused, type GuardedFetch } from '../../net/guarded-fetch.js';
import type { Clock, Logger } from '../../sdk/contracts.js';
import type { EntryChecker } from '../check-entry.js';
import { documentUrlOf, looksLikeDocumentUrl } from './client-id-url.js';
import { DocumentProblem, jsonBody, keysOf, readDocument } from './document-client.js';

/** Why a document gave no client, in words the page and `error_description` may show. */
export interface DocumentFailure {
  readonly failure: string;
}

export interface MetadataDocuments {
  /** The id is an https URL this deployment would fetch. */
  names(clientId: string): boolean;
  /** The last client read for the id, while it is kept. */
  get(clientId: string): Client | undefined;
  /** Fetches the document unless a fresh copy (or a fresh failure) is kept. */
  resolve(clientId: string): Promise<Client | DocumentFailure>;
}

export const isDocumentFailure = (value: Client | DocumentFailure): value is DocumentFailure => 'failure' in value;

interface Entry {
  client: Client | undefined;
  failure: string | undefined;
  freshUntil: number;
}

const maxEntries = 1000;
const accept = 'application/json';

/** Seconds a response may be kept: `max-age` (0 for `no-store`/`no-cache`), clamped to the bounds. */
export function keepSeconds(cacheControl: string | undefined, min: number, max: number): number {
  const directives = (cacheControl ?? '').toLowerCase().split(',').map((d) => d.trim());
  let seconds = max;
  if (directives.some((d) => d === 'no-store' || d === 'no-cache')) seconds = 0;
  else {
    const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)?.[1]).find((v) => v !== undefined);
    if (maxAge !== undefined) seconds = Number(maxAge);
  }
  return Math.min(max, Math.max(min, seconds));
}

/** The extra CA file, read once at start-up; a file that cannot be read stops start-up naming the field. */
function readCertificates(path: string): string {
  try {
    const pem = readFileSync(path, 'utf8');
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate in it');
    return pem;
  } catch (err) {
    throw new BootError('CONFIG_INVALID', `clientIdMetadataDocuments.trustedCertificates: cannot use ${path}: ${(err as Error).message}`);
  }
}

export interface MetadataDocumentsDeps {
  config: Pick<ResolvedConfig, 'clientIdMetadataDocuments' | 'configDir'>;
  checker: EntryChecker;
  clock: Clock;
  logger: Logger;
  /** Default: the guarded fetch the config describes. */
  fetch?: GuardedFetch;
}

export function createMetadataDocuments(deps: MetadataDocumentsDeps): MetadataDocuments {
  const settings = deps.config.clientIdMetadataDocuments;
  const allowedHosts = new Set(settings.allowedHosts);
  const fetch = deps.fetch ?? createGuardedFetch({
    maxBytes: settings.maxBytes,
    timeoutMs: settings.timeout * 1000,
    allowedAddresses: addressMatcher(settings.allowedAddresses),
    extraCa: settings.trustedCertificates === undefined ? undefined : readCertificates(resolvePath(deps.config.configDir, settings.trustedCertificates)),
    accept,
  });
  const entries = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<Client | DocumentFailure>>();

  function remember(clientId: string, entry: Entry): void {
    entries.delete(clientId);
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
    entries.set(clientId, entry);
  }

  async function fetchJson(url: URL, what: string): Promise<{ json: unknown; seconds: number }> {
    const answer = await fetch(url);
    const header = answer.headers['cache-control'];
    return {
      json: jsonBody(answer.headers['content-type'], answer.body, what),
      seconds: keepSeconds(Array.isArray(header) ? header.join(',') : header, settings.minCacheSeconds, settings.maxCacheSeconds),
    };
  }

  async function load(clientId: string, url: URL): Promise<Client | DocumentFailure> {
    const now = deps.clock.now();
    try {
      const { json, seconds } = await fetchJson(url, 'the document');
      const read = readDocument(json, url, clientId, { allowedScopes: settings.allowedScopes });
      let definition = read.definition;
      let keep = seconds;
      if (read.jwksUri) {
        const jwks = await fetchJson(read.jwksUri, 'its jwks_uri');
        definition = { ...definition, clientSecrets: keysOf(jwks.json).map((jwk) => ({ type: 'JsonWebKey', value: JSON.stringify(jwk) })) };
        keep = Math.min(keep, jwks.seconds);
      }
      // The config's own rules, as for a stored client; the id is put back after (config ids are short).
      const checked = deps.checker.client({ ...definition, clientId: 'metadata-document' }, []);
      if (!checked.ok) {
        deps.logger.info({ clientId, problems: checked.problems }, 'client ID metadata document refused by the config\'s rules');
        throw new DocumentProblem('it asks for something this service does not allow');
      }
      const client = Object.freeze({ ...checked.value, clientId });
      remember(clientId, { client, failure: undefined, freshUntil: now + keep * 1000 });
      deps.logger.debug({ clientId, keepSeconds: keep }, 'client ID metadata document read');
      return client;
    } catch (err) {
      if (!(err instanceof FetchRefused) && !(err instanceof DocumentProblem)) throw err;
      const failure = `The client's metadata document cannot be used: ${err.message}.`;
      deps.logger.info({ clientId, reason: err.message, ...(err instanceof FetchRefused ? { detail: err.logDetail } : {}) }, 'client ID metadata document refused');
      // The last good client stays readable for pages already open; new requests see the failure.
      remember(clientId, { client: entries.get(clientId)?.client, failure, freshUntil: now + settings.minCacheSeconds * 1000 });
      return { failure };
    }
  }

  return {
    names: (clientId) => settings.enabled && looksLikeDocumentUrl(clientId),
    get(clientId) {
      return settings.enabled ? entries.get(clientId)?.client : undefined;
    },
    async resolve(clientId) {
      const url = documentUrlOf(clientId, allowedHosts);
      if (url === 'malformed') return { failure: 'The client_id is not a URL a client ID metadata document may have.' };
      if (url === 'host-not-allowed') return { failure: 'Client ID metadata documents are not accepted from this host.' };
      const kept = entries.get(clientId);
      if (kept && kept.freshUntil > deps.clock.now()) {
        if (kept.failure !== undefined) return { failure: kept.failure };
        if (kept.client) return kept.client;
      }
      let pending = inFlight.get(clientId);
      if (!pending) {
        pending = load(clientId, url).finally(() => inFlight.delete(clientId));
        inFlight.set(clientId, pending);
      }
      return pending;
    },
  };
}
