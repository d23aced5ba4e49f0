/**
 * Every `svc` command: its synopsis, what it does, its options and how it runs. `main.ts`
 * parses against this table, so `svc <command> --help` and the overview always match what a
 * command accepts.
 */
import type { ParseArgsConfig } from 'node:util';
import { hashPassword } from '../oauth/password-hash.js';
import { hashSecret } from '../sdk/hash.js';
import { readSecret } from './read-secret.js';
import { CliError } from './user-facing-error.js';
import { flagSynopsis } from './field-flags.js';
import { registryOptions } from './registry-options.js';

type OptionSpec = NonNullable<ParseArgsConfig['options']>;
export type OptionValues = Record<string, string | boolean | string[] | boolean[] | undefined>;

export interface Command {
  readonly name: string;
  /** Arguments and options after the command's name. */
  readonly synopsis: string;
  readonly summary: string;
  /** Lines after the synopsis in `svc <command> --help`. */
  readonly details?: string;
  readonly options: OptionSpec;
  /** Most positional arguments accepted. */
  readonly positionals?: number;
  /** Takes a flag per client field of the package's plugins too (`pluginFieldFlags`), loaded before parsing. */
  readonly pluginFieldFlags?: boolean;
  run(values: OptionValues, positionals: readonly string[]): Promise<number>;
}

const config = { config: { type: 'string', short: 'c' } } as const;
const configHelp = '  --config, -c <path>   the config file (default: SVC_CONFIG, else cosmiconfig\'s search from here)';

const text = (value: OptionValues[string]): string | undefined => (typeof value === 'string' ? value : undefined);

/** A port from `--port` or `PORT`, checked. */
function portOverride(values: OptionValues): number | undefined {
  const raw = text(values.port) ?? process.env.PORT;
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) {
    throw new CliError(`${text(values.port) === undefined ? 'PORT' : '--port'} must be a port number from 1 to 65535, got "${raw}".`);
  }
  return port;
}

/** A listen address from `--host` or `HOST`; the config checks it like the file's `host`. */
function hostOverride(values: OptionValues): string | undefined {
  const raw = text(values.host) ?? process.env.HOST;
  return raw === undefined || raw === '' ? undefined : raw;
}

/** The secret from the command line, or from standard input when none (or `-`) was given. */
async function secretArgument(positionals: readonly string[], what: string): Promise<string> {
  const given = positionals[0];
  return given === undefined || given === '-' ? readSecret(what) : given;
}

export const commands: Command[] = [
  {
    name: 'init',
    synopsis: '[<folder>] [--for m2m|sign-in|both]',
    summary: 'write a starter svc.config.ts (clients, an API and a user with new secrets), a key file and an empty plugins folder',
    details:
      '  <folder>              where to write them (default: the current folder; created if missing).\n' +
      '  --for <kind>          what the config is for (default: both; no prompt, so scripts get the same):\n' +
      '                        m2m      an API and a client_credentials client "app"\n' +
      '                        sign-in  identity resources (openid, profile, email), a code-flow client\n' +
      '                                 "webapp" (redirect URI http://localhost:8080/callback) and a user "demo"\n' +
      '                        both     all of these\n' +
      '  Refuses to overwrite anything. The secrets and the password are printed once; the config\n' +
      '  keeps only their hashes.',
    options: { for: { type: 'string' } },
    positionals: 1,
    run: async (values, positionals) => (await import('./init.js')).initCommand(positionals[0], text(values.for)),
  },
  {
    name: 'start',
    synopsis: '[--config <path>] [--port <n>] [--host <address>]',
    summary: 'run the service',
    details: `${configHelp}\n  --port <n>            listen on this port instead of the config's (PORT does the same)\n` +
      "  --host <address>      listen on this address instead of the config's host, e.g. 0.0.0.0 in a\n" +
      '                        container (HOST does the same)',
    options: { ...config, port: { type: 'string' }, host: { type: 'string' } },
    run: async (values) => (await import('./start.js')).start(text(values.config), portOverride(values), hostOverride(values)),
  },
  {
    name: 'check-config',
    synopsis: '[--config <path>]',
    summary: 'validate the config and plugins, warn about expiring secrets, then exit',
    details: configHelp,
    options: config,
    run: async (values) => (await import('./check-config.js')).checkConfigCommand(text(values.config)),
  },
  {
    name: 'plugins',
    synopsis: '[--config <path>]',
    summary: 'list discovered plugins, grant types and auth methods',
    details: configHelp,
    options: config,
    run: async (values) => (await import('./list-plugins.js')).listPlugins(text(values.config)),
  },
  {
    name: 'hash-secret',
    synopsis: '[<secret> | -]',
    summary: 'print the stored form of a shared secret (base64 SHA-256)',
    details:
      '  With no argument (or "-") the secret is read from standard input, so it stays out of the\n' +
      '  shell history: printf %s "$SECRET" | svc hash-secret',
    options: {},
    positionals: 1,
    run: async (_values, positionals) => {
      process.stdout.write(`${hashSecret(await secretArgument(positionals, 'secret'))}\n`);
      return 0;
    },
  },
  {
    name: 'hash-password',
    synopsis: '[<password> | -]',
    summary: "print a PHC scrypt hash for a user's password",
    details: '  With no argument (or "-") the password is read from standard input (a prompt that does not echo).',
    options: {},
    positionals: 1,
    run: async (_values, positionals) => {
      process.stdout.write(`${await hashPassword(await secretArgument(positionals, 'password'))}\n`);
      return 0;
    },
  },
  {
    name: 'keys',
    synopsis: '[list | rotate [--alg <alg>] | retire <kid> | rewrap] [--config <path>]',
    summary: 'list the stored signing keys and how each is encrypted; rotate, retire one, or rewrap them under the newest key-encryption key',
    details:
      `${configHelp}\n` +
      '  rotate makes a successor for each managed algorithm (or --alg\'s), published at once and\n' +
      '  signing after signing.propagationTime; the key it replaces retires as in the scheduled rotation.\n' +
      '  retire <kid> takes a key out of the JWKS now (believed compromised): tokens it signed stop verifying.\n' +
      '  rewrap re-encrypts every stored signing key under the first of signing.keyEncryptionKeys;\n' +
      '  after it, an older key-encryption key can be removed from the config.\n' +
      '  svc --server <admin URL> keys list|rotate|retire: the same through a running service\'s admin API,\n' +
      '  whose nodes follow at once (on the database, at their next key refresh).',
    options: { ...config, alg: { type: 'string' } },
    positionals: 2,
    run: async (values, positionals) => (await import('./keys-command.js')).keysCommand(positionals[0], text(values.config), text(values.server), { kid: positionals[1], alg: text(values.alg) }),
  },
  {
    name: 'migrate',
    synopsis: '[status | up | contract] [--config <path>]',
    summary: "list the store's applied and pending schema migrations; up applies the pending ones; contract ends the upgrade",
    details:
      `${configHelp}\n` +
      '  status (the default) only reads. up applies the pending migrations under the lock a node\n' +
      '  takes when it migrates at start-up, so it is safe while nodes run. Migrations only add\n' +
      '  (expand/contract): nodes of the previous release keep running on the migrated schema.\n' +
      '  contract, once every node runs this release, records that none of the previous release is\n' +
      '  left: the nodes then write what it cannot read (time-ordered grant-family ids). It refuses\n' +
      '  while migrations are pending. See docs/guides/operations.md, "Upgrades".',
    options: config,
    positionals: 1,
    run: async (values, positionals) => (await import('./migrate-command.js')).migrateCommand(positionals[0], text(values.config)),
  },
  {
    name: 'create-client-key',
    synopsis: '--client <id> --out <key.pem> [--cert <cert.crt>] [--alg ES256|RS256|PS256|EdDSA] [--days 365]',
    summary: 'make a key pair and self-signed certificate for private_key_jwt',
    details:
      '  --out <key.pem>       the private key (owner-only); never overwritten\n' +
      '  --cert <cert.crt>     the certificate (default: beside the key, .crt)',
    options: { client: { type: 'string' }, out: { type: 'string' }, cert: { type: 'string' }, alg: { type: 'string' }, days: { type: 'string' } },
    run: async (values) =>
      (await import('./create-client-key-command.js')).createClientKeyCommand({
        client: text(values.client), out: text(values.out), cert: text(values.cert), alg: text(values.alg), days: text(values.days),
      }),
  },
  {
    name: 'client-assertion',
    synopsis: '--client <id> --key <key.pem> [--aud <issuer>] [--config <path>]',
    summary: 'print a fresh private_key_jwt client assertion (for curl)',
    details: `  --aud <issuer>        the audience; default: the issuer of the config\n${configHelp}`,
    options: { ...config, client: { type: 'string' }, key: { type: 'string' }, aud: { type: 'string' } },
    run: async (values) =>
      (await import('./client-assertion-command.js')).clientAssertionCommand({
        client: text(values.client), key: text(values.key), aud: text(values.aud), config: text(values.config),
      }),
  },
  {
    name: 'request-object',
    synopsis: '--client <id> --key <key.pem> [--aud <issuer>] [--config <path>] <name=value>...',
    summary: 'print a signed request object (RFC 9101) with these parameters (for curl)',
    details:
      '  <name=value>...       the authorization request parameters, e.g. response_type=code scope=openid\n' +
      `  --aud <issuer>        the audience; default: the issuer of the config\n${configHelp}`,
    options: { ...config, client: { type: 'string' }, key: { type: 'string' }, aud: { type: 'string' } },
    positionals: 50,
    run: async (values, positionals) =>
      (await import('./request-object-command.js')).requestObjectCommand({
        client: text(values.client), key: text(values.key), aud: text(values.aud), config: text(values.config),
      }, positionals),
  },
  {
    name: 'dpop-proof',
    synopsis: '--key <key.pem> --htu <url> [--htm POST] [--token <access token>] [--nonce <nonce>]',
    summary: 'print a fresh DPoP proof for one request (for curl)',
    details:
      '  --htu <url>           the endpoint URL, e.g. http://localhost:5000/connect/token\n' +
      '  --htm <method>        the request method (default POST)\n' +
      '  --token <token>       the access token the proof accompanies (adds ath), for UserInfo\n' +
      '  --nonce <nonce>       the server nonce from a DPoP-Nonce header, when dpop.requireNonce is on\n' +
      '  Make a key once: openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out dpop.pem',
    options: { key: { type: 'string' }, htu: { type: 'string' }, htm: { type: 'string' }, token: { type: 'string' }, nonce: { type: 'string' } },
    run: async (values) =>
      (await import('./dpop-proof-command.js')).dpopProofCommand({
        key: text(values.key), htu: text(values.htu), htm: text(values.htm), token: text(values.token), nonce: text(values.nonce),
      }),
  },
];


const registryDetails = (noun: 'clients' | 'apis'): string => {
  const id = noun === 'clients' ? '<client_id>' : '<name>';
  const rows: Array<[string, string]> = [
    [`add ${id}`, noun === 'clients' ? '--grant <type>... --scope <scope>... [--name <n>] [--redirect-uri <uri>...] [--public]' : '--scope <scope>...'],
    ...flagSynopsis(noun === 'clients' ? 'client' : 'apiResource').map((line): [string, string] => ['', line]),
    ['', "[--definition '<json of config fields>'] [--disabled]: a flag per field (the config reference names each)"],
    ...(noun === 'clients' ? [['', 'and per client field of the package\'s plugins, e.g. --allowed-subject-token-audience <api>...'] as [string, string]] : []),
    ...(noun === 'clients' ? [['', "or --from-config: copy the config file's entry, stored secret hashes and all"] as [string, string]] : []),
    ['', 'a generated secret is printed once; only its SHA-256 hash is stored'],
    ['list', `the ${noun === 'clients' ? 'clients' : 'API resources'} in the database (never a secret or hash)`],
    [`show ${id}`, "one entry with its secrets' ids, types and expiries"],
    [`update ${id}`, 'replace the fields the options name (same options as add)'],
    [`disable|enable ${id}`, 'refuse or allow its authentication again'],
    [`remove ${id}`, ''],
    [`secret add ${id}`, '[--expires-in 90d] [--expire-others-in 7d] [--description <text>]'],
    ['', 'a rotation: the new secret works at once, the old ones until the overlap ends'],
    [`secret add ${id} --certificate <pem file>`, '[--expires-in 90d] [--description <text>]: the certificate as an'],
    ['', 'X509CertificateBase64 secret (private_key_jwt, self_signed_tls_client_auth)'],
    [`secret add ${id} --type <type> --value <text>`, "[--expires-in 90d] [--description <text>]: a secret whose value is not"],
    ['', 'secret, e.g. --type FederatedCredential --value \'{"issuer":"...","subject":"..."}\' (workload-identity)'],
    [`secret expire ${id} <secret_id>`, '[--in 0]: expire it now, or after a delay'],
    [`secret remove ${id} <secret_id>`, ''],
    ...(noun === 'clients'
      ? [
          [`test-auth ${id}`, '[--method <m>]: why its authentication would fail; exit 1 if it would'],
          ['registration-token', '[--expires-in 30d] [--max-uses 1]: an initial access token for /connect/register'],
          ['', '(RFC 7591) that registers at most --max-uses clients'],
        ] as Array<[string, string]>
      : []),
    ['--json', 'machine-readable output'],
  ];
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return [
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`.trimEnd()),
    configHelp,
    '  Works on the store the config names (SQLite or PostgreSQL) while the service runs; every',
    '  node sees a change within clientStores.refreshInterval seconds.',
    '  svc --server <admin URL> ' + noun + ' ...: the same actions through a running service\'s admin API',
    `  (token in SVC_ADMIN_TOKEN, or behind mutual TLS a client certificate in SVC_ADMIN_CERT and SVC_ADMIN_KEY,`,
    `  the listener's CA in SVC_ADMIN_CA), on the database's entries; not secret expire${noun === 'clients' ? ', test-auth, registration-token' : ''}.`,
  ].join('\n');
};

commands.push(
  {
    name: 'clients',
    synopsis: 'add|list|show|update|disable|enable|remove|secret|test-auth|registration-token [<client_id>] [options]',
    summary: 'manage clients and their secrets in the database',
    details: registryDetails('clients'),
    options: registryOptions,
    positionals: 4,
    pluginFieldFlags: true,
    run: async (values, positionals) => (await import('./clients-command.js')).clientsCommand('client', values, positionals),
  },
  {
    name: 'apis',
    synopsis: 'add|list|show|update|disable|enable|remove|secret [<name>] [options]',
    summary: 'manage API resources and their secrets in the database',
    details: registryDetails('apis'),
    options: registryOptions,
    positionals: 4,
    run: async (values, positionals) => (await import('./clients-command.js')).clientsCommand('apiResource', values, positionals),
  },
);

const usersDetails = [
  '  add <username>          [--email <address>] [--email-verified true|false] [--claim name=value]...',
  "                          [--claims '<json>'] [--disabled] [--generate-password | --no-password]",
  '  list                    every user in the database (never a password hash)',
  '  show <user>             one user: subject, e-mail, claims, state, last sign-in, linked identities',
  '  update <user>           [--username <new>] [--email <address> | --email ""] [--email-verified true|false]',
  "                          [--claim name=value]... [--remove-claim name]... [--claims '<json>']",
  '  disable|enable <user>   refuse or allow their sign-in; disable also ends their sessions and revokes',
  '                          their refresh tokens',
  '  remove <user>           delete them (their subject id is never given to anyone else)',
  '  set-password <user>     [--generate-password]',
  '  unlink <user> <provider> [<upstream subject>]   forget a linked upstream identity',
  '  factors <user>          their second factors: one-time codes on or off, recovery codes left, passkeys (never a secret)',
  '  remove-factor <user> totp|recovery|passkey|all   remove them (a lost phone); the next sign-in asks for none',
  '  --json                  machine-readable output',
  '  <user> is a username (compared without regard to case) or a subject id. A password is read',
  '  from a prompt that does not echo, or from standard input (printf %s "$PW" | svc users add alice),',
  '  never from the command line; --generate-password prints a new one once. It must meet passwordRules.',
  configHelp,
  '  svc --server <admin URL> users ...: the same actions through a running service\'s admin API',
  '  (token in SVC_ADMIN_TOKEN, or behind mutual TLS a client certificate in SVC_ADMIN_CERT and SVC_ADMIN_KEY,',
  '  the listener\'s CA in SVC_ADMIN_CA); not unlink, factors, remove-factor.',
].join('\n');

commands.push({
  name: 'users',
  synopsis: 'add|list|show|update|disable|enable|remove|set-password|unlink|factors|remove-factor [<user>] [options]',
  summary: 'manage the users the service keeps in the database',
  details: usersDetails,
  options: {
    ...config,
    json: { type: 'boolean' },
    email: { type: 'string' },
    'email-verified': { type: 'string' },
    claim: { type: 'string', multiple: true },
    'remove-claim': { type: 'string', multiple: true },
    claims: { type: 'string' },
    username: { type: 'string' },
    disabled: { type: 'boolean' },
    'generate-password': { type: 'boolean' },
    'no-password': { type: 'boolean' },
  },
  positionals: 4,
  run: async (values, positionals) => (await import('./users-command.js')).usersCommand(values, positionals),
});

export function overview(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return (
    'usage: svc <command> [options]\n\ncommands:\n' +
    commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n') +
    '\n\nsvc <command> --help shows a command\'s options.\n'
  );
}

export function commandHelp(command: Command): string {
  return `usage: svc ${command.name} ${command.synopsis}\n\n${command.summary}\n${command.details ? `\n${command.details}\n` : ''}`;
}
