/**
 * `svc init [folder] [--for m2m|sign-in|both]`: a starter deployment in a new or empty folder:
 * `svc.config.ts`, a key-encryption key file (mode 0600) that seals the signing keys the service
 * creates, and an empty `plugins/` folder for the deployment's own plugins.
 *
 * What the config holds depends on `--for` (default `both`):
 * - `m2m`: one API and one client_credentials client, each with a generated secret;
 * - `sign-in`: the identity resources openid, profile and email, a code-flow web app (`webapp`,
 *   redirect URI http://localhost:8080/callback) with a generated secret, and one config user
 *   with a generated password, so docs/guides/signing-users-in.md "Sign in a user" runs as is;
 * - `both`: all of it.
 * There is no interactive prompt: the command behaves the same in a terminal, a script and CI.
 * Secrets and the password are printed once; the config keeps only their hashes. Nothing is
 * overwritten: if any of the files exists, nothing is written at all.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hashPassword } from '../oauth/password-hash.js';
import { hashSecret } from '../sdk/hash.js';
import { CliError } from './user-facing-error.js';

export const starterKinds = ['m2m', 'sign-in', 'both'] as const;
export type StarterKind = (typeof starterKinds)[number];

/** The names the starter config gives what it makes; the sign-in walk's defaults match the sample's instead. */
export const starterNames = { m2mClient: 'app', api: 'api', webClient: 'webapp', user: 'demo' } as const;

export interface StarterSecrets {
  readonly clientSecretHash?: string | undefined;
  readonly apiSecretHash?: string | undefined;
  readonly webappSecretHash?: string | undefined;
  /** PHC scrypt hash of the user's password. */
  readonly userPasswordHash?: string | undefined;
  /** The user's subject id (random, never reused). */
  readonly userSubject?: string | undefined;
}

const m2mPart = (s: StarterSecrets) => ({
  api: `  apiScopes: [{ name: 'api.read', description: 'Read data in the API' }],
  apiResources: [
    // The API authenticates at /connect/introspect with its name and this secret (printed once by svc init).
    { name: '${starterNames.api}', scopes: ['api.read'], secrets: [{ value: '${s.apiSecretHash}', description: 'made by svc init' }] },
  ],
`,
  client: `    // Machine to machine: client_credentials with the secret printed once by svc init.
    // A new secret: \`npx svc hash-secret\` (reads it from standard input), then replace the value.
    {
      clientId: '${starterNames.m2mClient}',
      clientSecrets: [{ value: '${s.clientSecretHash}', description: 'made by svc init' }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api.read'],
    },
`,
});

const signInPart = (s: StarterSecrets, withApi: boolean) => ({
  identity: `  // What a signed-in person's ID token and UserInfo may say (OpenID Connect Core §5.4).
  identityResources: [
    { name: 'openid', claims: ['sub'] },
    { name: 'profile', description: 'Your name', claims: ['name', 'given_name', 'family_name'] },
    { name: 'email', description: 'Your email address', claims: ['email', 'email_verified'] },
  ],
  // One person who can sign in, with the password printed once by svc init (the config keeps its
  // scrypt hash; a new one: \`npx svc hash-password\`). For many users, \`svc users add\` keeps
  // them in the database instead (docs/guides/signing-users-in.md, "Users").
  users: [
    {
      subjectId: '${s.userSubject}',
      username: '${starterNames.user}',
      password: '${s.userPasswordHash}',
      claims: { name: 'Demo User', given_name: 'Demo', family_name: 'User', email: 'demo@example.com', email_verified: false },
    },
  ],
`,
  client: `    // A server-side web app signing people in: the authorization code flow with PKCE, refresh
    // tokens, logout back to its home page; the secret printed once by svc init. Put your app's
    // own URLs in redirectUris and postLogoutRedirectUris (compared exactly).
    {
      clientId: '${starterNames.webClient}',
      clientName: 'My web app',
      clientSecrets: [{ value: '${s.webappSecretHash}', description: 'made by svc init' }],
      allowedGrantTypes: ['authorization_code', 'refresh_token'],
      allowedScopes: ['openid', 'profile', 'email'${withApi ? ", 'api.read'" : ''}],
      allowOfflineAccess: true,
      redirectUris: ['http://localhost:8080/callback'],
      postLogoutRedirectUris: ['http://localhost:8080/'],
    },
`,
});

/** The starter config's text for `kind`; only hashes of the secrets and the password go in. */
export function starterConfig(secrets: StarterSecrets, kind: StarterKind = 'm2m'): string {
  const m2m = kind === 'sign-in' ? undefined : m2mPart(secrets);
  const signIn = kind === 'm2m' ? undefined : signInPart(secrets, m2m !== undefined);
  return `// Written by \`svc init --for ${kind}\`. Every field and its default: the package's docs/config-reference.md.
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

${m2m?.api ?? ''}${signIn?.identity ?? ''}
  clients: [
${m2m?.client ?? ''}${signIn?.client ?? ''}  ],
});
`;
}

/** 32 random bytes, base64url: a secret with 256 bits of entropy that needs no quoting in a shell. */
const newSecret = (): string => randomBytes(32).toString('base64url');

export function parseStarterKind(raw: string | undefined): StarterKind {
  if (raw === undefined) return 'both';
  if ((starterKinds as readonly string[]).includes(raw)) return raw as StarterKind;
  throw new CliError(`--for must be one of ${starterKinds.join(', ')}, got "${raw}".`);
}

export async function initCommand(folder: string | undefined, forWhat?: string): Promise<number> {
  const kind = parseStarterKind(forWhat);
  const root = resolve(folder ?? '.');
  const configFile = join(root, 'svc.config.ts');
  const pluginDir = join(root, 'plugins');
  const keyDir = join(root, 'keys');
  const kekFile = join(keyDir, 'key-encryption-key');
  const existing = [configFile, pluginDir, kekFile].filter((p) => existsSync(p));
  if (existing.length > 0) {
    throw new CliError(`${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}; svc init writes nothing over them. Choose an empty folder: svc init <folder>`);
  }
  const m2m = kind !== 'sign-in' ? { client: newSecret(), api: newSecret() } : undefined;
  const signIn = kind !== 'm2m' ? { webapp: newSecret(), password: newSecret() } : undefined;
  const config = starterConfig({
    clientSecretHash: m2m && hashSecret(m2m.client),
    apiSecretHash: m2m && hashSecret(m2m.api),
    webappSecretHash: signIn && hashSecret(signIn.webapp),
    userPasswordHash: signIn && (await hashPassword(signIn.password)),
    userSubject: signIn && randomBytes(16).toString('base64url'),
  }, kind);
  mkdirSync(root, { recursive: true });
  mkdirSync(keyDir, { recursive: true, mode: 0o700 });
  mkdirSync(pluginDir);
  // `wx`: fail rather than replace a file that appeared since the check above.
  writeFileSync(kekFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  writeFileSync(configFile, config, { flag: 'wx' });
  const lines = [`Wrote ${configFile}, ${kekFile} (keep it private) and an empty ${pluginDir}${'/'}.`, ''];
  if (m2m) {
    lines.push(`client "${starterNames.m2mClient}" secret:  ${m2m.client}`, `API "${starterNames.api}" secret:     ${m2m.api}`);
  }
  if (signIn) {
    lines.push(`client "${starterNames.webClient}" secret: ${signIn.webapp}`, `user "${starterNames.user}" password:  ${signIn.password}`);
  }
  lines.push('', 'These are shown only now: the config keeps their hashes. Store them where your clients, API and user read them.', '');
  lines.push(`Start the service:    npx svc start --config ${configFile}`);
  if (signIn) {
    lines.push(
      '',
      'Then, for the walk in docs/guides/signing-users-in.md "Sign in a user", in the same shell:',
      `  export CLIENT_ID=${starterNames.webClient} CLIENT_SECRET=${signIn.webapp} USER_NAME=${starterNames.user} USER_PASSWORD=${signIn.password}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
