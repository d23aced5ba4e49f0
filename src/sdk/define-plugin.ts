import type { Plugin } from './contracts.js';

/**
 * Identity helper that gives a plugin object its types; a plain object works the same. The
 * options type is inferred from the `options` parser, so every factory's `deps.options` is typed.
 *
 * @example
 * export default definePlugin({
 *   name: 'magic-word',
 *   options: (raw) => ({ word: typeof raw.word === 'string' ? raw.word : 'please' }),
 *   extensionGrants: [({ options }) => createMagicWordGrant(options.word)],
 * });
 */
export function definePlugin<Options = Readonly<Record<string, unknown>>>(plugin: Plugin<Options>): Plugin<Options> {
  return plugin;
}
