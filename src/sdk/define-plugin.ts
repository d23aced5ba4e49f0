import type { Plugin } from './contracts.js';

/** Identity helper that gives a plugin object its types; a plain object works the same. */
export function definePlugin<const P extends Plugin>(plugin: P): P {
  return plugin;
}
