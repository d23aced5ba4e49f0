/**
 * `private_key_jwt` client authentication: JWT assertions (RFC 7523, RFC 10070) verified with a
 * client's X.509 certificate or public JWK; the same keys verify the client's signed request
 * objects (RFC 9101) for the host. See README.md for options and secret definitions.
 */
import { definePlugin } from 'svc/sdk';
import { createAssertionParser } from './assertion-parser.js';
import { createAssertionValidator } from './assertion-validator.js';
import { readOptions } from './options.js';
import { createRequestObjectVerifier } from './request-object-verifier.js';

export default definePlugin({
  name: 'private-key-jwt',
  options: readOptions,
  secretParsers: [createAssertionParser],
  secretValidators: [createAssertionValidator],
  // Signed request objects (RFC 9101): the host verifies them with these same keys.
  clientSignatureVerifiers: [createRequestObjectVerifier],
});
