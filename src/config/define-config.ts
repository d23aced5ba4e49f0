import type { UserConfig } from './schema.js';

/** Identity helper for editor completion in `svc.config.ts`; a plain `export default {}` works too. */
export function defineConfig(config: UserConfig): UserConfig {
  return config;
}
