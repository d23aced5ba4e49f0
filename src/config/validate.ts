/**
 * Validation of a user config of unknown shape, through its one declaration (`schema.ts`) and
 * the checks across fields beside it (`cross-checks.ts`). Returns one message per problem, each
 * naming the field path, what is wrong and what is allowed:
 * `clients[2].allowedGrantTypes[0]: expected a non-empty string, got number 42`.
 * Checks that need the loaded plugins (grant types, secret types, authentication methods) live in
 * `src/plugin-host/check-config.ts`.
 */
import { crossCheck } from './cross-checks.js';
import { problemLines } from './issues.js';
import { setAsidePluginFields } from './plugin-client-fields.js';
import { logLevels, userConfigSchema } from './schema.js';

export { logLevels };

export interface ValidateOptions {
  /**
   * Leaves a client's fields the service does not declare to the plugins (`plugin-client-fields.ts`):
   * they are judged once the plugins are loaded. Without it they are refused as unknown here.
   */
  readonly pluginClientFields?: boolean;
}

export function validateUserConfig(raw: unknown, options: ValidateOptions = {}): string[] {
  const config = options.pluginClientFields === true ? setAsidePluginFields(raw).hostConfig : raw;
  const result = userConfigSchema.safeParse(config);
  return problemLines(userConfigSchema, result.success ? [] : result.error.issues, crossCheck(config));
}
