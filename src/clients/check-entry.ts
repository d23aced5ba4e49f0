/**
 * Checks a client or API resource that came from a store (the database, a plugin's) with the
 * very rules a config entry meets: `validateUserConfig` for its shape, `resolveConfig` for its
 * defaults, `checkConfigAgainstPlugins` for the grant types, secret types and methods the loaded
 * plugins provide. Problems name the entry, e.g. `client "m2m".allowedScopes[0]: unknown scope`.
 */
import { BootError } from '../config/boot-error.js';
import { resolveConfig } from '../config/resolve.js';
import type { ApiResource, Client, ResolvedConfig } from '../config/schema.js';
import { validateUserConfig } from '../config/validate.js';
import { checkConfigAgainstPlugins } from '../plugin-host/check-config.js';
import type { PluginRegistry } from '../plugin-host/plugin-registry.js';

export type Checked<T> = { readonly ok: true; readonly value: T; readonly disabled: boolean } | { readonly ok: false; readonly problems: readonly string[] };

export interface EntryChecker {
  /** `storeResources`: API resources the stores hold, which a client may name as well as the config's. */
  client(entry: unknown, storeResources: readonly ApiResource[]): Checked<Client>;
  apiResource(entry: unknown): Checked<ApiResource>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `disabled` is the store's, not the config's: taken off before the config's rules see the entry. */
function split(entry: unknown): { body: unknown; disabled: boolean; problem?: string } {
  if (!isObject(entry)) return { body: entry, disabled: false };
  const { disabled, ...body } = entry;
  if (disabled !== undefined && typeof disabled !== 'boolean') return { body, disabled: false, problem: 'disabled: expected true or false' };
  return { body, disabled: disabled === true };
}

export function createEntryChecker(config: ResolvedConfig, registry: PluginRegistry): EntryChecker {
  // The config's model, as raw entries the validator reads: what a stored client may refer to.
  const model = {
    issuer: config.issuer,
    apiScopes: config.apiScopes.map((s) => ({ name: s.name })),
    identityResources: config.identityResources.map((r) => ({ name: r.name, claims: [...r.claims] })),
    // The ID token algorithms the service has keys for: a stored client may pick only one of them.
    signing: { idTokenAlgorithms: [...config.signing.idTokenAlgorithms], accessTokenAlgorithm: config.signing.accessTokenAlgorithm },
    // The global FAPI 2.0 profile: a stored client meets its rules as a config one does.
    fapi2: config.fapi2,
  };
  const resourceEntries = config.apiResources.map((r) => ({ name: r.name, scopes: [...r.scopes] }));

  function check<T>(label: string, prefix: string, raw: Record<string, unknown>, pick: (resolved: ResolvedConfig) => T, disabled: boolean): Checked<T> {
    const rename = (line: string): string => (line.startsWith(prefix) ? label + line.slice(prefix.length) : line);
    const problems = validateUserConfig(raw, { pluginClientFields: true });
    if (problems.length > 0) return { ok: false, problems: problems.map(rename) };
    const resolved = resolveConfig(raw, config.configDir);
    try {
      checkConfigAgainstPlugins(resolved, registry);
    } catch (err) {
      if (err instanceof BootError) return { ok: false, problems: err.problems.map(rename) };
      throw err;
    }
    return { ok: true, value: pick(resolved), disabled };
  }

  return {
    client(entry, storeResources) {
      const { body, disabled, problem } = split(entry);
      const id = isObject(body) && typeof body.clientId === 'string' ? body.clientId : '?';
      const label = `client "${id}"`;
      if (problem) return { ok: false, problems: [`${label}.${problem}`] };
      const known = new Set(resourceEntries.map((r) => r.name));
      const apiResources = [...resourceEntries, ...storeResources.filter((r) => !known.has(r.name)).map((r) => ({ name: r.name, scopes: [...r.scopes] }))];
      const raw = { ...model, apiResources, clients: [body] };
      return check(label, 'clients[0]', raw, (r) => r.clients[0]!, disabled);
    },
    apiResource(entry) {
      const { body, disabled, problem } = split(entry);
      const name = isObject(body) && typeof body.name === 'string' ? body.name : '?';
      const label = `API resource "${name}"`;
      if (problem) return { ok: false, problems: [`${label}.${problem}`] };
      // Issue 35: the sign-in and the token endpoint read `requiredAcr` from the config file's APIs
      // at start-up; a stored API's would be silently ignored, so it is refused instead.
      if (isObject(body) && body.requiredAcr !== undefined) {
        return { ok: false, problems: [`${label}.requiredAcr: honoured only for API resources in the config file; define this API there, or leave requiredAcr out`] };
      }
      const raw = { ...model, apiResources: [body] };
      return check(label, 'apiResources[0]', raw, (r) => r.apiResources[0]!, disabled);
    },
  };
}
