/**
 * The `svc` command: start the server, check a config, hash secrets and passwords, list
 * plugins, make a client key. Returns the exit code.
 */
import { parseArgs } from 'node:util';
import { BootError } from '../config/boot-error.js';
import { hashSecret } from '../oauth/secret-hash.js';
import { hashPassword } from '../oauth/password-hash.js';

const usage = `usage: svc <command> [options]

commands:
  start [--config <path>]            run the service (SVC_CONFIG also selects the config)
  check-config [--config <path>]     validate the config and plugins, then exit
  plugins [--config <path>]          list discovered plugins, grant types and auth methods
  hash-secret <secret>               print the stored form of a shared secret (base64 SHA-256)
  hash-password <password>           print a PHC scrypt hash for a user's password
  create-client-key --client <id> --out <key.pem> [--alg ES256|RS256|PS256|EdDSA] [--days 365]
                                     make a key pair and self-signed certificate for private_key_jwt
  client-assertion --client <id> --key <key.pem> [--aud <issuer>]
                                     print a fresh private_key_jwt client assertion (for curl)
`;

function fail(message: string): number {
  process.stderr.write(`svc: ${message}\n`);
  return 1;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        config: { type: 'string', short: 'c' },
        client: { type: 'string' },
        out: { type: 'string' },
        alg: { type: 'string' },
        days: { type: 'string' },
        key: { type: 'string' },
        aud: { type: 'string' },
      },
    });
  } catch (err) {
    return fail(`${(err as Error).message}\n\n${usage}`);
  }
  const { values, positionals } = parsed;
  try {
    switch (command) {
      case 'start':
        return await (await import('./start.js')).start(values.config);
      case 'check-config':
        return await (await import('./check-config.js')).checkConfigCommand(values.config);
      case 'plugins':
        return await (await import('./list-plugins.js')).listPlugins(values.config);
      case 'hash-secret':
        if (positionals.length !== 1) return fail('hash-secret takes exactly one secret');
        process.stdout.write(`${hashSecret(positionals[0]!)}\n`);
        return 0;
      case 'hash-password':
        if (positionals.length !== 1) return fail('hash-password takes exactly one password');
        process.stdout.write(`${await hashPassword(positionals[0]!)}\n`);
        return 0;
      case 'create-client-key':
        return await (await import('./create-client-key-command.js')).createClientKeyCommand(values);
      case 'client-assertion':
        return await (await import('./client-assertion-command.js')).clientAssertionCommand(values);
      case undefined:
      case 'help':
      case '--help':
        process.stdout.write(usage);
        return command === undefined ? 1 : 0;
      default:
        return fail(`unknown command "${command}"\n\n${usage}`);
    }
  } catch (err) {
    if (err instanceof BootError) {
      process.stderr.write(`svc: cannot start [${err.code}]\n  ${err.problems.join('\n  ')}\n`);
      return 1;
    }
    throw err;
  }
}

