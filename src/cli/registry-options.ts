/**
 * The options of `svc clients` and `svc apis`, apart from the command table so the clients command
 * can tell which flag names a plugin field's flag may not take (`pluginFieldFlags`).
 */
import { fieldFlagOptions } from './field-flags.js';

export const registryOptions = {
  config: { type: 'string', short: 'c' },
  json: { type: 'boolean' },
  name: { type: 'string' },
  grant: { type: 'string', multiple: true },
  scope: { type: 'string', multiple: true },
  'redirect-uri': { type: 'string', multiple: true },
  public: { type: 'boolean' },
  definition: { type: 'string' },
  disabled: { type: 'boolean' },
  'from-config': { type: 'boolean' },
  'expires-in': { type: 'string' },
  'expire-others-in': { type: 'string' },
  'max-uses': { type: 'string' },
  description: { type: 'string' },
  certificate: { type: 'string' },
  type: { type: 'string' },
  value: { type: 'string' },
  in: { type: 'string' },
  method: { type: 'string' },
  // Every other field of a client or API resource (issue 39), named after the config field.
  ...fieldFlagOptions(),
} as const;
