/**
 * `private_key_jwt` client authentication: JWT assertions (RFC 7523, RFC 10070) verified with a
 * client's X.509 certificate or public JWK. See README.md for options and secret definitions.
 */
import { definePlugin } from 'svc/sdk';
import { createAssertionParser } from './assertion-parser.js';
import { createAssertionValidator } from './assertion-validator.js';
import { readOptions } from './options.js';

export default definePlugin({
  name: 'private-key-jwt',
  options: readOptions,
  secretParsers: [createAssertionParser],
  secretValidators: [createAssertionValidator],
});
