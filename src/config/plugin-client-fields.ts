/**
 * Client fields the service does not declare are plugins' (`Plugin.clientFields`). The config is
 * read before the plugins load, so such fields are set aside here, kept on the resolved client
 * as `pluginFields`, and judged once the plugins are loaded (`src/plugin-host/check-client-fields.ts`):
 * checked by the plugins that declare them, refused as unknown when none does.
 */
import { knownFields } from './issues.js';
import { clientSchema } from './model.js';

/** The fields the service itself declares on a client, in the declaration's order. */
export const hostClientFields: readonly string[] = knownFields(clientSchema);
const host: ReadonlySet<string> = new Set(hostClientFields);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A client entry without the fields the service does not declare, and those fields apart. */
export function splitClient(entry: unknown): { hostEntry: unknown; pluginFields: Record<string, unknown> } {
  if (!isObject(entry)) return { hostEntry: entry, pluginFields: {} };
  const hostEntry: Record<string, unknown> = {};
  const pluginFields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (host.has(key)) hostEntry[key] = value;
    else pluginFields[key] = value;
  }
  return { hostEntry, pluginFields };
}

/** The config with every client's undeclared fields set aside, and those fields by client index. */
export function setAsidePluginFields(raw: unknown): { hostConfig: unknown; pluginFields: Record<string, unknown>[] } {
  if (!isObject(raw) || !Array.isArray(raw.clients)) return { hostConfig: raw, pluginFields: [] };
  const split = raw.clients.map(splitClient);
  return { hostConfig: { ...raw, clients: split.map((s) => s.hostEntry) }, pluginFields: split.map((s) => s.pluginFields) };
}
