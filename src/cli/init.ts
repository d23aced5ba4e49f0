/**
 * `svc init [folder]`: a starter deployment in a new or empty folder: `svc.config.ts` with one
 * machine-to-machine client and one API, each with a generated secret of which the config keeps
 * only the hash; a key-encryption key file (mode 0600) that seals the signing keys the service
 * creates; and an empty `plugins/` folder for the deployment's own plugins. The secrets are
 * printed once. Nothing is overwritten: if any of these exists, nothing is written at all.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hashSecret } from '../sdk/hash.js';
import { CliError } from './user-facing-error.js';

export interface StarterSecrets {
  readonly clientSecretHash: string;
  readonly apiSecretHash: string;
}

/** The starter config's text; only hashes of the secrets go in. */
export function starterConfig(secrets: StarterSecrets): string {
  return `// Written by \`svc init\`. Every field and its default: the package's docs/config-reference.md.
import { defineConfig } from 'svc-token-service/config';

export default defineConfig({
  port: 5000,
  // The issuer clients and APIs see; set it to the public https:// URL in production.
  // issuer: 'https://login.example.com',
  // A SQLite file next to this config; "postgres://..." for several nodes.
  store: 'sqlite:./data/svc.db',
  // The first-party plugins (shared secrets, private_key_jwt, delegation, token exchange) load
  // from the package; your own plugin folders go in ./plugins.
  pluginDirs: ['./plugins'],
  signing: {
    // Seals the signing keys the service creates, so the store holds no usable private key.
    keyEncryptionKeys: [{ path: './keys/key-encryption-key' }],
  },

  apiScopes: [{ name: 'api.read', description: 'Read data in the API' }],
  apiResources: [
    // The API authenticates at /connect/introspect with its name and this secret (printed once by svc init).
    { name: 'api', scopes: ['api.read'], secrets: [{ value: '${secrets.apiSecretHash}', description: 'made by svc init' }] },
  ],

  clients: [
    // Machine to machine: client_credentials with the secret printed once by svc init.
    // A new secret: \`npx svc hash-secret\` (reads it from standard input), then replace the value.
    {
      clientId: 'app',
      clientSecrets: [{ value: '${secrets.clientSecretHash}', description: 'made by svc init' }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api.read'],
    },
  ],
});
`;
}

/** 32 random bytes, base64url: a secret with 256 bits of entropy that needs no quoting in a shell. */
const newSecret = (): string => randomBytes(32).toString('base64url');

export function initCommand(folder: string | undefined): number {
  const root = resolve(folder ?? '.');
  const configFile = join(root, 'svc.config.ts');
  const pluginDir = join(root, 'plugins');
  const keyDir = join(root, 'keys');
  const kekFile = join(keyDir, 'key-encryption-key');
  const existing = [configFile, pluginDir, kekFile].filter((p) => existsSync(p));
  if (existing.length > 0) {
    throw new CliError(`${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}; svc init writes nothing over them. Choose an empty folder: svc init <folder>`);
  }
  const clientSecret = newSecret();
  const apiSecret = newSecret();
  mkdirSync(root, { recursive: true });
  mkdirSync(keyDir, { recursive: true, mode: 0o700 });
  mkdirSync(pluginDir);
  // `wx`: fail rather than replace a file that appeared since the check above.
  writeFileSync(kekFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  writeFileSync(configFile, starterConfig({ clientSecretHash: hashSecret(clientSecret), apiSecretHash: hashSecret(apiSecret) }), { flag: 'wx' });
  process.stdout.write(
    `Wrote ${configFile}, ${kekFile} (keep it private) and an empty ${pluginDir}${'/'}.\n\n` +
      `client "app" secret:  ${clientSecret}\n` +
      `API "api" secret:     ${apiSecret}\n\n` +
      'These secrets are shown only now: the config keeps their hashes. Store them where your client and API read them.\n\n' +
      `Start the service:    npx svc start --config ${configFile}\n`,
  );
  return 0;
}
