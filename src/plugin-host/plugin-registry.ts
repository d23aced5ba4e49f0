/**
 * Builds every plugin's parts through the container and indexes them. Built-in grants come
 * through the same `registerPlugin` call as a dropped-in folder. Conflicts stop start-up.
 */
import { asValue, type AwilixContainer } from 'awilix';
import { BootError } from '../config/boot-error.js';
import type { ResolvedConfig } from '../config/schema.js';
import type { ExtensionGrantValidator, Logger, Plugin, ResourceOwnerValidator, SecretParser, SecretValidator, SignInPage } from '../sdk/contracts.js';
import type { EventSink } from '../events/service-event.js';
import { checkInstance, type FactoryList, type PluginPart } from './check.js';
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
}

export function createPluginRegistrar(container: AwilixContainer, config: ResolvedConfig, logger: Logger) {
  const plugins: PluginSummary[] = [];
  const secretParsers: SecretParser[] = [];
  const secretValidators: SecretValidator[] = [];
  const grants = new Map<string, ExtensionGrantValidator>();
  const eventSinks: EventSink[] = [];
  const methodOwner = new Map<string, string>();
  const grantOwner = new Map<string, string>();
  const names = new Map<string, string>();
  let resourceOwnersFrom: string | undefined;
  let signInPageFrom: string | undefined;
  let signInPage: SignInPage | undefined;

  async function build<T>(plugin: Plugin, source: string, list: PluginPart): Promise<T[]> {
    const single = list === 'resourceOwnerValidator' || list === 'signInPage';
    const factories: readonly unknown[] = single ? [plugin[list]] : (plugin[list as FactoryList] ?? []);
    const at = (i: number): string => (single ? list : `${list}[${i}]`);
    const scope = container.createScope();
    scope.register({
      pluginOptions: asValue(Object.freeze({ ...(config.plugins[plugin.name] ?? {}) })),
      logger: asValue(logger.child({ plugin: plugin.name })),
    });
    const built: T[] = [];
    for (const [i, factory] of factories.entries()) {
      let instance: unknown;
      try {
        instance = await (factory as (deps: unknown) => unknown)(scope.cradle);
      } catch (err) {
        throw new BootError('PLUGIN_INVALID', `plugin "${plugin.name}" (${source}): ${at(i)} failed to start: ${(err as Error).message}`, { cause: err });
      }
      const problem = checkInstance(list, instance);
      if (problem) throw new BootError('PLUGIN_INVALID', `plugin "${plugin.name}" (${source}): ${at(i)}: ${problem}`);
      built.push(instance as T);
    }
    return built;
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
      container.register({ resourceOwnerValidator: asValue(refuseClientSubjects(validator!, config.clients, logger)) });
      resourceOwnersFrom = plugin.name;
    },
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
      for (const p of parsers) {
        const owner = methodOwner.get(p.authenticationMethod);
        if (owner) throw new BootError('PLUGIN_CONFLICT', `plugins "${owner}" and "${plugin.name}" both provide the authentication method "${p.authenticationMethod}" (remove one)`);
        methodOwner.set(p.authenticationMethod, plugin.name);
      }
      for (const g of grantValidators) {
        const owner = grantOwner.get(g.grantType);
        if (owner) throw new BootError('PLUGIN_CONFLICT', `plugins "${owner}" and "${plugin.name}" both provide the grant type "${g.grantType}" (remove one)`);
        grantOwner.set(g.grantType, plugin.name);
        grants.set(g.grantType, g);
      }
      secretParsers.push(...parsers);
      secretValidators.push(...validators);
      eventSinks.push(...sinks);
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
      return { plugins, secretParsers, secretValidators, grants, eventSinks };
    },
  };
}

