import type { ApiResource, Client } from './model.js';

/** What a client field's check may look at besides the value: the API resources a client may name. */
export interface ClientFieldContext {
  /** The API resources of the config, and for a stored client those of the stores too. */
  readonly apiResources: ReadonlyArray<Pick<ApiResource, 'name' | 'uri'>>;
}

/**
 * The value a client field may hold, as JSON Schema (2020-12), for tools and people: the editor
 * schema (`svc.config.schema.json`), the admin API's OpenAPI document and the config reference
 * show it, and `svc clients` offers a flag for a boolean, number, string or array of strings.
 * It judges nothing: `check` does.
 */
export type ClientFieldJsonSchema = Readonly<Record<string, unknown>>;

/**
 * A client field a plugin reads, declared by the plugin (`Plugin.clientFields`): the host keeps
 * it on every client as written (config file, database, admin API, client-store plugin), checks
 * it with `check` wherever the client comes from, and refuses a field no loaded plugin declares
 * as unknown. Several plugins may declare the same field (two grants reading one setting): the
 * same declaration (one `defineClientField` both import) is checked once; two declarations each
 * run their check, and must agree on `default` and `jsonSchema`.
 */
export interface ClientFieldDeclaration<T = unknown> {
  /** For people: what the field means, with an example; shown by `svc clients --help` and the references. */
  readonly description: string;
  /** What the value looks like, e.g. `{ type: 'array', items: { type: 'string' } }`; absent: any JSON value. */
  readonly jsonSchema?: ClientFieldJsonSchema;
  /**
   * Judges the value as written (never `undefined`: an absent field takes `default` unchecked).
   * Throw an `OptionsError` naming the path inside the field (`''` for the field itself, `[1]`
   * for its second entry) and the problem: start-up stops (or the store's client is refused)
   * with `clients[0].<field><path>: <problem> (plugin "<name>")`. Runs at start-up and when a
   * stored client is written or loaded, never per request.
   */
  check(value: unknown, context: ClientFieldContext): asserts value is T;
  /** The value of a client that leaves the field out. */
  readonly default: T;
}

/** A declared client field, read through `read` by the plugin that declared it. */
export interface ClientField<T> extends ClientFieldDeclaration<T> {
  readonly name: string;
  /** The client's value (checked when the client was loaded), or the default. */
  read(client: Client): T;
}

/**
 * Declares a client field for `Plugin.clientFields`, with a typed reader.
 *
 * @example
 * export const costCentre = defineClientField('costCentre', {
 *   description: 'The cost centre billed for this client\'s tokens, e.g. `"CC-1234"`.',
 *   check(value) { if (typeof value !== 'string' || !/^CC-\d+$/.test(value)) throw new OptionsError('', 'expected "CC-" and digits'); },
 *   default: 'CC-0000',
 * });
 * // in the plugin: clientFields: [costCentre], and costCentre.read(ctx.request.client)
 */
export function defineClientField<T>(name: string, declaration: ClientFieldDeclaration<T>): ClientField<T> {
  return {
    name,
    description: declaration.description,
    ...(declaration.jsonSchema === undefined ? {} : { jsonSchema: declaration.jsonSchema }),
    check: declaration.check,
    default: declaration.default,
    read(client: Client): T {
      const written = client.pluginFields?.[name];
      return (written === undefined ? declaration.default : written) as T;
    },
  };
}

/**
 * The types of the client fields plugins declare, for `svc.config.ts` (`defineConfig` from
 * `svc/config` gives each client these beside the service's own fields). A plugin adds its
 * fields by declaration merging, so a config that sets them type-checks:
 *
 * @example
 * declare module 'svc/sdk' {
 *   interface PluginClientFields {
 *     costCentre?: string;
 *   }
 * }
 */
export interface PluginClientFields {}
