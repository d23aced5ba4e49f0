/**
 * Builds every plugin's parts and indexes them. Built-in grants come through the same
 * `registerPlugin` call as a dropped-in folder. Each plugin's factories receive one frozen set
 * of the dependencies the SDK documents (`PluginDependencies`), built once for the plugin: its
 * parsed options, a logger naming it, a store of its own records. Conflicts stop start-up.
 */
import { BootError } from '../config/boot-error.js';
import type { ResolvedConfig } from '../config/schema.js';
import type {
  ClientSignatureVerifier, ClientStore, Clock, EndpointUrls, ExtensionGrantValidator, Logger, ParameterDeclaration, Plugin, PluginConfig, PluginDependencies,
  ResourceOwnerValidator, SecretParser, SecretValidator, SignInPage, TokenValidator,
} from '../sdk/contracts.js';
import type { EventSink } from '../sdk/events.js';
import { isOptionsError } from '../sdk/errors.js';
import type { ClientField } from '../sdk/client-fields.js';
import { hostClientFields } from '../config/plugin-client-fields.js';
import type { DescribedClientField } from '../config/plugin-client-field-schemas.js';
import type { Store } from '../store/store.js';
import { checkInstance, type FactoryList, type PluginPart } from './check.js';
import { pluginStore } from './plugin-store.js';
import { refuseClientSubjects } from '../oauth/client-subject-guard.js';

export interface PluginSummary {
  readonly name: string;
  /** Folder, or `(built-in)` for the standard grants. */
  readonly source: string;
  readonly authenticationMethods: readonly string[];
  readonly grantTypes: readonly string[];
  readonly secretTypes: readonly string[];
  /** True for the plugin whose user store replaced the config's `users`. */
  readonly resourceOwners: boolean;
}

export interface PluginRegistry {
  readonly plugins: readonly PluginSummary[];
  readonly secretParsers: readonly SecretParser[];
  readonly secretValidators: readonly SecretValidator[];
  readonly grants: ReadonlyMap<string, ExtensionGrantValidator>;
  readonly eventSinks: readonly EventSink[];
  /** Every form parameter the registered parsers and grants declared. */
  readonly parameters: readonly ParameterDeclaration[];
  /** Plugins' sources of clients and API resources, in load order. */
  readonly clientStores: readonly ClientStore[];
  /** What verifies a client's signature with its registered keys (request objects, RFC 9101). */
  readonly clientSignatureVerifiers: readonly ClientSignatureVerifier[];
  /** The client fields plugins declare, by name, with every plugin that declares each (`check-client-fields.ts`). */
  readonly clientFields?: ReadonlyMap<string, readonly DeclaredClientField[]>;
}

/** A client field as one plugin declares it. */
export interface DeclaredClientField {
  readonly plugin: string;
  readonly field: ClientField<unknown>;
}

/** The registry's plugin fields, one entry per field, in declaration order. */
export function describedClientFields(registry: Pick<PluginRegistry, 'clientFields'>): DescribedClientField[] {
  return [...(registry.clientFields?.values() ?? [])].map((declarations) => ({ field: declarations[0]!.field, plugins: [...new Set(declarations.map((d) => d.plugin))] }));
}

/** The host services plugins are given parts of. */
export interface PluginHostServices {
  readonly config: Pick<ResolvedConfig, 'apiResources' | 'apiScopes' | 'clients' | 'identityResources' | 'issuer' | 'plugins'>;
  readonly urls: EndpointUrls;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly store: Store;
  readonly tokenValidator: TokenValidator;
  /** The config's `users`, unless a plugin's user store replaces it. */
  readonly configUsers: ResourceOwnerValidator;
}

/** The parts of the config a plugin may read, frozen once for every plugin. */
function pluginConfigOf(config: Pick<ResolvedConfig, 'apiResources' | 'apiScopes' | 'clients' | 'identityResources' | 'issuer' | 'plugins'>): PluginConfig {
  return Object.freeze({
    issuer: config.issuer,
    clients: config.clients,
    apiScopes: config.apiScopes,
    apiResources: config.apiResources,
    identityResources: config.identityResources,
  });
}

/**
 * One declaration, whether shared by reference or loaded twice (a module instance per loader):
 * the same description, check, default and JSON Schema.
 */
export function sameDeclaration(a: ClientField<unknown>, b: ClientField<unknown>): boolean {
  return a === b || (a.description === b.description && String(a.check) === String(b.check)
    && JSON.stringify(a.default) === JSON.stringify(b.default) && JSON.stringify(a.jsonSchema) === JSON.stringify(b.jsonSchema));
}

export function createPluginRegistrar(services: PluginHostServices) {
  const { config, logger } = services;
  const pluginConfig = pluginConfigOf(config);
  const plugins: PluginSummary[] = [];
  const secretParsers: SecretParser[] = [];
  const secretValidators: SecretValidator[] = [];
  const grants = new Map<string, ExtensionGrantValidator>();
  const eventSinks: EventSink[] = [];
  const parameters: ParameterDeclaration[] = [];
  const clientStores: ClientStore[] = [];
  const clientSignatureVerifiers: ClientSignatureVerifier[] = [];
  const clientFields = new Map<string, DeclaredClientField[]>();
  const clientStoreOwner = new Map<string, string>();
  const methodOwner = new Map<string, string>();
  const grantOwner = new Map<string, string>();
  const names = new Map<string, string>();
  const depsOf = new Map<Plugin, PluginDependencies>();
  const optionsOf = new Map<Plugin, Readonly<Record<string, unknown>>>();
  let resourceOwnerValidator = services.configUsers;
  let resourceOwnersFrom: string | undefined;
  let signInPageFrom: string | undefined;
  let signInPage: SignInPage | undefined;

  /** The plugin's dependencies: its options parsed once (a bad one stops start-up naming `plugins.<name>.<field>`). */
  function dependencies(plugin: Plugin, source: string): PluginDependencies {
    const known = depsOf.get(plugin);
    if (known) return known;
    const raw = Object.freeze({ ...(config.plugins[plugin.name] ?? {}) });
    let options: Readonly<Record<string, unknown>> = optionsOf.get(plugin) ?? raw;
    if (plugin.options !== undefined && !optionsOf.has(plugin)) {
      try {
        options = plugin.options(raw) as Readonly<Record<string, unknown>>;
      } catch (err) {
        const where = isOptionsError(err) ? `plugins.${plugin.name}.${err.field}: ${err.problem}` : `plugins.${plugin.name}: ${(err as Error).message}`;
        throw new BootError('CONFIG_INVALID', `${where} (plugin "${plugin.name}", ${source})`, { cause: err });
      }
    }
    optionsOf.set(plugin, options);
    const deps: PluginDependencies = Object.freeze({
      config: pluginConfig,
      urls: services.urls,
      options,
      pluginOptions: raw,
      logger: logger.child({ plugin: plugin.name }),
      clock: services.clock,
      store: pluginStore(services.store, plugin.name),
      tokenValidator: services.tokenValidator,
      resourceOwnerValidator,
    });
    depsOf.set(plugin, deps);
    return deps;
  }

  async function build<T>(plugin: Plugin, source: string, list: PluginPart): Promise<T[]> {
    const single = list === 'resourceOwnerValidator' || list === 'signInPage';
    const factories: readonly unknown[] = single ? [plugin[list]] : (plugin[list as FactoryList] ?? []);
    if (factories.length === 0) return [];
    const at = (i: number): string => (single ? list : `${list}[${i}]`);
    const deps = dependencies(plugin, source);
    const built: T[] = [];
    for (const [i, factory] of factories.entries()) {
      let instance: unknown;
      try {
        instance = await (factory as (deps: unknown) => unknown)(deps);
      } catch (err) {
        throw new BootError('PLUGIN_INVALID', `plugin "${plugin.name}" (${source}): ${at(i)} failed to start: ${(err as Error).message}`, { cause: err });
      }
      const problem = checkInstance(list, instance);
      if (problem) throw new BootError('PLUGIN_INVALID', `plugin "${plugin.name}" (${source}): ${at(i)}: ${problem}`);
      built.push(instance as T);
    }
    return built;
  }

  /**
   * A plugin field may not take a name the service uses. Two plugins that read one field (two
   * grants judging one setting) both declare it: the same declaration (one `defineClientField`
   * both import) is checked once (`check-client-fields.ts`); two declarations must agree on what the field is (its default and
   * its JSON Schema, what tools show), and each one's check runs.
   */
  function declareClientField(pluginName: string, field: ClientField<unknown>): void {
    if (hostClientFields.includes(field.name)) {
      throw new BootError('PLUGIN_CONFLICT', `plugin "${pluginName}" declares the client field "${field.name}", a field the service declares (rename it)`);
    }
    const earlier = clientFields.get(field.name) ?? [];
    const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
    for (const [what, of] of [['defaults', (f: ClientField<unknown>) => f.default], ['JSON Schemas', (f: ClientField<unknown>) => f.jsonSchema ?? {}]] as const) {
      const disagreeing = earlier.find((e) => !sameDeclaration(e.field, field) && !same(of(e.field), of(field)));
      if (disagreeing) {
        throw new BootError('PLUGIN_CONFLICT', `plugins "${disagreeing.plugin}" and "${pluginName}" both declare the client field "${field.name}" with different ${what} (${JSON.stringify(of(disagreeing.field))} and ${JSON.stringify(of(field))}): make them agree`);
      }
    }
    clientFields.set(field.name, [...earlier, { plugin: pluginName, field }]);
  }

  return {
    /**
     * Puts a plugin's user store in place of the config's `users`. Called for every plugin
     * folder before any `registerPlugin`, so the parts built then (the password grant, the device
     * page, ID tokens) all check passwords against it.
     */
    async useResourceOwnerValidator(plugin: Plugin, source: string): Promise<void> {
      if (plugin.resourceOwnerValidator === undefined) return;
      if (resourceOwnersFrom !== undefined) {
        throw new BootError('PLUGIN_CONFLICT', `plugins "${resourceOwnersFrom}" and "${plugin.name}" both provide the resourceOwnerValidator (remove one)`);
      }
      const [validator] = await build<ResourceOwnerValidator>(plugin, source, 'resourceOwnerValidator');
      // The plugin's own other parts, built later, see its user store too.
      depsOf.delete(plugin);
      resourceOwnerValidator = refuseClientSubjects(validator!, config.clients, logger);
      resourceOwnersFrom = plugin.name;
    },
    /** The user store in force: a plugin's, or the config's `users`. */
    resourceOwnerValidator: (): ResourceOwnerValidator => resourceOwnerValidator,
    /** Puts a plugin's sign-in page in place of the built-in one; at most one plugin may. */
    async useSignInPage(plugin: Plugin, source: string): Promise<void> {
      if (plugin.signInPage === undefined) return;
      if (signInPageFrom !== undefined) {
        throw new BootError('PLUGIN_CONFLICT', `plugins "${signInPageFrom}" and "${plugin.name}" both provide the signInPage (remove one)`);
      }
      [signInPage] = await build<SignInPage>(plugin, source, 'signInPage');
      signInPageFrom = plugin.name;
    },
    /** The plugin sign-in page, if one replaced the built-in page. */
    signInPage(): SignInPage | undefined {
      return signInPage;
    },
    async registerPlugin(plugin: Plugin, source: string): Promise<void> {
      const earlier = names.get(plugin.name);
      if (earlier) throw new BootError('PLUGIN_CONFLICT', `two plugins are named "${plugin.name}": ${earlier} and ${source} (rename or remove one)`);
      names.set(plugin.name, source);

      const parsers = await build<SecretParser>(plugin, source, 'secretParsers');
      const validators = await build<SecretValidator>(plugin, source, 'secretValidators');
      const grantValidators = await build<ExtensionGrantValidator>(plugin, source, 'extensionGrants');
      const sinks = await build<EventSink>(plugin, source, 'eventSinks');
      const stores = await build<ClientStore>(plugin, source, 'clientStores');
      const signatureVerifiers = await build<ClientSignatureVerifier>(plugin, source, 'clientSignatureVerifiers');
      for (const c of stores) {
        const owner = clientStoreOwner.get(c.name);
        if (owner || c.name === 'config' || c.name === 'database') {
          throw new BootError('PLUGIN_CONFLICT', `plugin "${plugin.name}" provides a client store named "${c.name}", a name ${owner ? `plugin "${owner}" uses` : 'the service uses'} (rename it)`);
        }
        clientStoreOwner.set(c.name, plugin.name);
      }
      clientStores.push(...stores);
      for (const p of parsers) {
        const owner = methodOwner.get(p.authenticationMethod);
        if (owner) throw new BootError('PLUGIN_CONFLICT', `plugins "${owner}" and "${plugin.name}" both provide the authentication method "${p.authenticationMethod}" (remove one)`);
        methodOwner.set(p.authenticationMethod, plugin.name);
        parameters.push(...(p.parameters ?? []));
      }
      for (const g of grantValidators) {
        const owner = grantOwner.get(g.grantType);
        if (owner) throw new BootError('PLUGIN_CONFLICT', `plugins "${owner}" and "${plugin.name}" both provide the grant type "${g.grantType}" (remove one)`);
        grantOwner.set(g.grantType, plugin.name);
        grants.set(g.grantType, g);
        parameters.push(...(g.parameters ?? []));
      }
      for (const field of plugin.clientFields ?? []) declareClientField(plugin.name, field);
      secretParsers.push(...parsers);
      secretValidators.push(...validators);
      eventSinks.push(...sinks);
      clientSignatureVerifiers.push(...signatureVerifiers);
      plugins.push({
        name: plugin.name,
        source,
        authenticationMethods: parsers.map((p) => p.authenticationMethod),
        grantTypes: grantValidators.map((g) => g.grantType),
        secretTypes: [...new Set(validators.flatMap((v) => v.secretTypes))],
        resourceOwners: resourceOwnersFrom === plugin.name && plugin.resourceOwnerValidator !== undefined,
      });
    },
    registry(): PluginRegistry {
      return { plugins, secretParsers, secretValidators, grants, eventSinks, parameters, clientStores, clientSignatureVerifiers, clientFields };
    },
  };
}
