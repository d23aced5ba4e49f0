/**
 * Shared secrets (spec §5.1): sent in an HTTP Basic header or in the form body, checked against
 * SHA-256 (or SHA-512) hashes. Delete this folder and secrets no longer authenticate anyone.
 */
import { definePlugin } from 'svc/sdk';
import { createBasicParser } from './basic-parser.js';
import { createPostBodyParser } from './post-body-parser.js';
import { createHashedSecretValidator } from './hashed-secret-validator.js';

export default definePlugin({
  name: 'shared-secret',
  secretParsers: [createBasicParser, createPostBodyParser],
  secretValidators: [createHashedSecretValidator],
});
