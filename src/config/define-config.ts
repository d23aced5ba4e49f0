/**
 * What `svc.config.ts` imports: `import { defineConfig } from 'svc/config'`. The config's types
 * are the host's, so they are published apart from the plugin SDK (`svc/sdk`).
 */
import type { UserConfig } from './schema.js';

export type {
  UserConfig, ClientConfig, SecretConfig, ApiScopeConfig, ApiResourceConfig, IdentityResourceConfig,
} from './schema.js';

/** Identity helper for editor completion in `svc.config.ts`; a plain `export default {}` works too. */
export function defineConfig(config: UserConfig): UserConfig {
  return config;
}
