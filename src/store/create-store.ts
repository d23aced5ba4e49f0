import { resolve } from 'node:path';
import { createMemoryStore } from './memory-store.js';
import type { Store } from './store.js';
import type { WideFile } from './sql/file-modes.js';

const ALLOWED_FORMS = '"memory", "sqlite:<path>" (relative to the config file), "sqlite::memory:" or "postgres://..."';

/**
 * Opens the backend a `store` config value names. Does not migrate; the host does. A SQL backend
 * (Kysely and its driver) is loaded only when named, so a memory store never loads one.
 *
 * @example
 * await createStore('sqlite:data/svc.db', '/etc/svc'); // /etc/svc/data/svc.db
 * await createStore('postgres://svc@db.internal/svc', configDir);
 */
export async function createStore(spec: string, configDir: string, options: { onFileOpenToOthers?: (file: WideFile) => void } = {}): Promise<Store> {
  if (spec === 'memory') return createMemoryStore();
  if (spec.startsWith('postgres://') || spec.startsWith('postgresql://')) return (await import('./sql/postgres.js')).openPostgres(spec);
  if (spec.startsWith('sqlite:') && spec.length > 'sqlite:'.length) {
    const path = spec.slice('sqlite:'.length);
    return (await import('./sql/sqlite.js')).openSqlite(path === ':memory:' ? path : resolve(configDir, path), options);
  }
  // Only the scheme is echoed: a mistyped database URL may carry a password.
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(spec)?.[0];
  const found = scheme ? `a value starting with "${scheme}"` : `"${spec.length > 20 ? `${spec.slice(0, 20)}…` : spec}"`;
  throw new Error(`Invalid "store": expected ${ALLOWED_FORMS}; found ${found}.`);
}
