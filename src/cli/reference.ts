/**
 * The CLI reference (docs/cli-reference.md), written from the command table's own help text
 * (`commands.ts`), so the page says exactly what `svc <command> --help` says. `npm run
 * cli-reference` writes it; test/docs/cli-reference.test.ts fails when it is stale.
 */
import { commandHelp, commands, overview } from './commands.js';
import { remoteCommands } from './main.js';

const fence = (text: string): string => `\`\`\`\n${text.replace(/\n+$/, '')}\n\`\`\``;

export function cliReference(): string {
  const sections = commands.map((command) => `## svc ${command.name}\n\n${fence(commandHelp(command))}`);
  return [
    '# CLI reference',
    '',
    '<!-- Written by `npm run cli-reference` from src/cli/commands.ts; do not edit by hand. -->',
    '',
    'Every `svc` command with its options, as `npx svc <command> --help` prints them. In a clone run',
    '`npx svc` (or `npm run svc --`); in a deployment of the installed package, `npx svc`.',
    '',
    fence(overview()),
    '',
    '`svc --version` prints the version. `svc --server <admin API URL> <command> ...` runs',
    `${[...remoteCommands].map((name) => `\`${name}\``).join(', ')} through a running service's admin API instead of on the`,
    'config\'s database, with the same output (see the [admin API guide](guides/admin-api.md)): the access token',
    'in `SVC_ADMIN_TOKEN`, or, for an admin API behind mutual TLS (`admin.tls`), the client certificate and key',
    'in `SVC_ADMIN_CERT` and `SVC_ADMIN_KEY` and the CA of the listener\'s certificate in `SVC_ADMIN_CA` (PEM files).',
    '',
    sections.join('\n\n'),
    '',
  ].join('\n');
}
