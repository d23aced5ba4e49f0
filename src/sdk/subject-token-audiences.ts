/**
 * `allowedSubjectTokenAudiences`: the APIs a client fronts, whose users' tokens it may exchange.
 * A client field of the delegation and token exchange plugins (issue 32), declared once here so
 * both list this one declaration in `clientFields`: a config that sets it for either grant means
 * the same thing, and the host checks it once. The SDK holds it, not one plugin folder, because
 * either plugin may be loaded without the other.
 */
import { defineClientField } from './client-fields.js';
import { OptionsError } from './errors.js';

declare module './client-fields.js' {
  interface PluginClientFields {
    /** The API resources this client fronts, by name (delegation, token exchange), e.g. `["api1"]`. */
    allowedSubjectTokenAudiences?: readonly string[];
  }
}

const shown = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : value === null ? 'null' : typeof value);

export const allowedSubjectTokenAudiences = defineClientField<readonly string[]>('allowedSubjectTokenAudiences', {
  description: 'The API resources this client fronts, by name, e.g. `["api1"]`: a user\'s token it exchanges (delegation\'s `token`, token exchange\'s `subject_token`) must be addressed to one of them (`aud`, by the API\'s name or its `uri`). Without it the client can exchange no token; a client allowed either grant must list one.',
  jsonSchema: { type: 'array', items: { type: 'string', minLength: 1 } },
  check(value, { apiResources }) {
    if (!Array.isArray(value)) throw new OptionsError('', `expected an array of API resource names, got ${shown(value)}`);
    const names = apiResources.map((r) => r.name);
    value.forEach((name: unknown, i) => {
      if (typeof name !== 'string') throw new OptionsError(`[${i}]`, `expected an API resource name, got ${shown(name)}`);
      if (!names.includes(name)) throw new OptionsError(`[${i}]`, `unknown API resource "${name}" (known: ${names.join(', ') || 'none; define apiResources'})`);
    });
  },
  default: [],
});
