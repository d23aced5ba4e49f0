/**
 * Resource indicators (RFC 8707): which APIs a request names with `resource`, and what a token
 * for exactly those APIs carries. Built once at start-up from `apiResources`; every endpoint that
 * takes `resource` (authorization, PAR, device authorization, token) asks this one module, so
 * the rules and the `invalid_target` answers are the same everywhere.
 *
 * An API is named by its `uri`, or by its name when the name is itself an absolute URI, or by any
 * name when the deployment accepts names (`resourceIndicators.acceptNames`, IdentityServer's way).
 * Whichever way it was named, the token's `aud` is the API's one identifier (`audienceOf`).
 */
import type { ApiResource, Client } from '../config/schema.js';
import { audienceOf } from '../sdk/resources.js';
import { isResourceIndicator } from '../config/model.js';
import { strongestAcr } from './acr-classes.js';
import { InvalidRequest, InvalidTarget } from './errors.js';

/**
 * What a refusal says. An unknown API and one the client may not use read the same, so a client
 * cannot probe which APIs exist; the log line tells them apart.
 */
export const targetDescriptions = {
  malformed: 'A resource parameter is not an absolute URI without a fragment.',
  unknown: 'A requested resource is unknown or not available to this client.',
  noScope: 'None of the requested scopes belong to a requested resource.',
  notGranted: 'A requested resource was not part of the grant.',
} as const;

export interface ResourceCatalog {
  /**
   * The APIs named by `resource` values, as audience identifiers, in the order sent, each once.
   * Refuses (`invalid_target`, RFC 8707 §2) a value that is no absolute URI without a fragment,
   * an unknown API, and an API none of the client's allowed scopes belong to.
   */
  resolve(client: Pick<Client, 'clientId' | 'allowedScopes'>, values: readonly string[]): string[];
  /** The API an audience entry names (by identifier or name), if any. */
  find(audience: string): ApiResource | undefined;
  /**
   * The scopes a token for exactly `audience` carries: the API scopes of those APIs, plus the
   * scopes that are no API's (identity scopes, `offline_access`): RFC 8707 §2's "the requested
   * scope ... applicable to the resource". An API left with none of the
   * scopes is `invalid_target`.
   */
  narrowScopes(scopes: readonly string[], audience: readonly string[]): string[];
  /**
   * RFC 8707 §2.2: the audience of a token taken from a grant that holds `granted` resources
   * (a code, a refresh token, a device code): the `requested` ones when sent (never one outside
   * the grant: `invalid_target`), else all of the grant's. A grant that holds none (`undefined`)
   * covers every API of its scopes, and `narrowScopes` judges the request.
   */
  within(granted: readonly string[] | undefined, requested: readonly string[]): readonly string[] | undefined;
  /**
   * The front of a grant (authorization and device authorization requests): the APIs `values`
   * name and the requested scopes that belong to them, kept with the code or device code. A client
   * with `requireResourceIndicator` must name one (`invalid_request`).
   */
  grantTarget(client: Pick<Client, 'clientId' | 'allowedScopes' | 'requireResourceIndicator'>, values: readonly string[], scopes: readonly string[]): { scopes: readonly string[]; resources: readonly string[] };
  /**
   * Issue 35: the strongest `requiredAcr` of the APIs a token is for: those of `audience` when
   * the token names them, else every API of its `scopes`; undefined when none asks for one.
   */
  requiredAcr(audience: readonly string[] | undefined, scopes: readonly string[]): string | undefined;
}

export function createResourceCatalog(options: {
  apiResources: readonly ApiResource[];
  /** `resourceIndicators.acceptNames`: a `resource` may be an API's plain name. */
  acceptNames: boolean;
}): ResourceCatalog {
  const byIdentifier = new Map<string, ApiResource>();
  const byName = new Map<string, ApiResource>();
  const scopeOwners = new Map<string, ApiResource[]>();
  for (const api of options.apiResources) {
    byIdentifier.set(audienceOf(api), api);
    byName.set(api.name, api);
    for (const s of api.scopes) scopeOwners.set(s, [...(scopeOwners.get(s) ?? []), api]);
  }
  const find = (audience: string): ApiResource | undefined => byIdentifier.get(audience) ?? byName.get(audience);
  // Most deployments set no `requiredAcr`: their token requests skip the look-up altogether.
  const anyRequiresAcr = options.apiResources.some((api) => api.requiredAcr !== undefined);

  function named(value: string): ApiResource | undefined {
    if (isResourceIndicator(value)) return byIdentifier.get(value) ?? byName.get(value);
    return options.acceptNames ? byName.get(value) : undefined;
  }

  const catalog: ResourceCatalog = {
    find,

    requiredAcr(audience, scopes) {
      if (!anyRequiresAcr) return undefined;
      const apis = audience !== undefined ? audience.map((a) => find(a)) : scopes.flatMap((s) => scopeOwners.get(s) ?? []);
      return strongestAcr(apis.map((api) => api?.requiredAcr));
    },

    resolve(client, values) {
      const audience: string[] = [];
      for (const value of values) {
        const api = named(value);
        if (api === undefined) {
          if (!isResourceIndicator(value) && !options.acceptNames) {
            throw new InvalidTarget(targetDescriptions.malformed, { logDetail: `client ${JSON.stringify(client.clientId)} sent a resource that is no absolute URI without a fragment` });
          }
          throw new InvalidTarget(targetDescriptions.unknown, { logDetail: `client ${JSON.stringify(client.clientId)} named an unknown resource ${JSON.stringify(value.slice(0, 200))}` });
        }
        if (!api.scopes.some((s) => client.allowedScopes.includes(s))) {
          throw new InvalidTarget(targetDescriptions.unknown, { logDetail: `client ${JSON.stringify(client.clientId)} is allowed none of the scopes of API resource ${JSON.stringify(api.name)}` });
        }
        const id = audienceOf(api);
        if (!audience.includes(id)) audience.push(id);
      }
      return audience;
    },

    narrowScopes(scopes, audience) {
      const apis = audience.map((a) => find(a)).filter((api): api is ApiResource => api !== undefined);
      // A scope no API owns (identity scopes, `offline_access`) names no audience: it stays.
      const kept = scopes.filter((s) => !scopeOwners.has(s) || apis.some((api) => api.scopes.includes(s)));
      for (const api of apis) {
        if (!api.scopes.some((s) => kept.includes(s))) {
          throw new InvalidTarget(targetDescriptions.noScope, { logDetail: `no requested scope belongs to API resource ${JSON.stringify(api.name)}` });
        }
      }
      return kept;
    },

    within(granted, requested) {
      if (requested.length === 0) return granted;
      if (granted === undefined) return requested;
      const held = new Set(granted.map((a) => { const api = find(a); return api ? audienceOf(api) : a; }));
      const outside = requested.find((r) => !held.has(r));
      if (outside !== undefined) throw new InvalidTarget(targetDescriptions.notGranted, { logDetail: `resource ${JSON.stringify(outside)} is outside the grant's resources` });
      return requested;
    },

    grantTarget(client, values, scopes) {
      const resources = catalog.resolve(client, values);
      if (resources.length > 0) return { scopes: catalog.narrowScopes(scopes, resources), resources };
      if (client.requireResourceIndicator) {
        throw new InvalidRequest('This client must name the API the token is for with the resource parameter.', { logDetail: `client ${JSON.stringify(client.clientId)} requires resource indicators` });
      }
      return { scopes, resources };
    },
  };
  return catalog;
}

/** A catalog of no APIs: every `resource` is refused. For tests and tools that wire no config. */
export const noResources: ResourceCatalog = createResourceCatalog({ apiResources: [], acceptNames: false });
