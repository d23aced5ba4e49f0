/**
 * The store as a plugin sees it: its own records and nothing else. Every key is put in the
 * plugin's namespace (`plugin:<name>:`) on the way in and taken out on the way back, so a plugin
 * can neither read nor spend the service's tokens, codes or keys, nor another plugin's records.
 * No listing, no bulk removal, no signing keys, no `close`.
 */
import type { PluginRecord, PluginStore } from '../sdk/contracts.js';
import { timeOrderedKeyPrefix } from '../sdk/store-keys.js';
import type { PersistedGrant, Store } from '../store/store.js';

export function pluginStore(store: Store, pluginName: string): PluginStore {
  const prefix = `plugin:${pluginName}:`;
  // A `timeOrderedKey` keeps its time in front, where the store looks for it (hash-key.ts); the
  // namespace follows the dot, so it still separates the plugin's keys from every other key.
  const inside = (key: string): string => (timeOrderedKeyPrefix.test(key) ? key.slice(0, 13) + prefix + key.slice(13) : prefix + key);
  const outside = (record: PersistedGrant | undefined, key: string): PluginRecord | undefined =>
    record === undefined ? undefined : Object.freeze({ ...record, key });
  return Object.freeze({
    add: (record: PluginRecord) => store.add({ ...record, key: inside(record.key) }),
    get: async (key: string) => outside(await store.get(inside(key)), key),
    consume: async (key: string, now: number) => outside(await store.consume(inside(key), now), key),
    remove: (key: string) => store.remove(inside(key)),
  });
}
