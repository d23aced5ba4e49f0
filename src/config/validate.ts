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
import { logLevels, userConfigSchema } from './schema.js';

export { logLevels };

export function validateUserConfig(raw: unknown): string[] {
  const result = userConfigSchema.safeParse(raw);
  return problemLines(userConfigSchema, result.success ? [] : result.error.issues, crossCheck(raw));
}
