/**
 * The `svc` command: finds the command in the table (`commands.ts`), parses its options,
 * runs it and returns the exit code. Whatever goes wrong, the user reads one line saying what
 * and what to do (`user-facing-error.ts`), never a stack trace.
 */
import { parseArgs } from 'node:util';
import { serviceVersion } from '../app/version.js';
import { didYouMean } from '../config/closest-name.js';
import { commandHelp, commands, overview, type Command } from './commands.js';
import { fieldFlagOptions, pluginFieldFlags } from './field-flags.js';
import { describeFailure } from './user-facing-error.js';

function fail(message: string): number {
  process.stderr.write(`svc: ${message}\n`);
  return 1;
}

/** Commands that can act on a running service through its admin API (`svc --server <URL> ...`). */
export const remoteCommands: ReadonlySet<string> = new Set(['clients', 'apis', 'users', 'keys']);

export async function main(argv: string[]): Promise<number> {
  // `svc --server <admin URL> <command> ...` (issue 39): through the admin API instead of the database.
  let server: string | undefined;
  if (argv[0] === '--server' || argv[0]?.startsWith('--server=')) {
    server = argv[0] === '--server' ? argv[1] : argv[0].slice('--server='.length);
    if (server === undefined || server === '') return fail('--server needs the admin API\'s URL, e.g. svc --server http://127.0.0.1:5001 clients list');
    argv = argv.slice(argv[0] === '--server' ? 2 : 1);
  }
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(overview());
    return 1;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`svc ${serviceVersion}\n`);
    return 0;
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    const about = rest[0] === undefined ? undefined : commands.find((c) => c.name === rest[0]);
    process.stdout.write(about ? commandHelp(about) : overview());
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) return fail(`unknown command "${name}"${didYouMean(name, commands.map((c) => c.name))}\n\n${overview()}`);
  if (server !== undefined && !remoteCommands.has(command.name)) return fail(`--server works with ${[...remoteCommands].join(', ')} so far; run svc ${command.name} on the config's database.`);

  let parsed;
  try {
    // The package's plugins' client fields have flags too (issue 32); loaded only for the commands that take them.
    const pluginFlags = command.pluginFieldFlags === true ? fieldFlagOptions(await pluginFieldFlags(Object.keys(command.options))) : {};
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { ...pluginFlags, ...command.options, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    return fail(`${optionProblem(err as Error & { code?: string }, command)}\n\n${commandHelp(command)}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  if (positionals.length > (command.positionals ?? 0)) {
    return fail(`${command.name} takes ${command.positionals ? `at most ${command.positionals} argument` : 'no arguments'}\n\n${commandHelp(command)}`);
  }
  try {
    return await command.run(server === undefined ? values : { ...values, server }, positionals);
  } catch (err) {
    return fail(describeFailure(err, command.name));
  }
}

/**
 * Node's parser words its errors for programmers (`Unknown option '--prot'. To specify a
 * positional argument starting with a '-', place it ...`): say it in the CLI's own words,
 * with the closest option the command has.
 */
function optionProblem(err: Error & { code?: string }, command: Command): string {
  // The option as Node quotes it: `'--prot'`, `'--port <value>'`, `'-h, --help'`: its long name.
  const given = /'(-[^']*)'/.exec(err.message)?.[1]?.split(/[ ,]+/).filter((token) => token.startsWith('-')).pop();
  const known = Object.entries(command.options).flatMap(([long, spec]) => [`--${long}`, ...(spec.short ? [`-${spec.short}`] : [])]);
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `${command.name}: unknown option ${given ?? ''}${given ? didYouMean(given, [...known, '--help']) : ''}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return given === undefined
        ? `${command.name}: ${err.message}`
        : `${command.name}: ${given} ${/argument missing/.test(err.message) ? 'needs a value' : 'takes no value'}`;
    default:
      return `${command.name}: ${err.message}`;
  }
}
