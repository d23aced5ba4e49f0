/**
 * The `svc` command: finds the command in the table (`commands.ts`), parses its options,
 * runs it and returns the exit code. Whatever goes wrong, the user reads one line saying what
 * and what to do (`user-facing-error.ts`), never a stack trace.
 */
import { parseArgs } from 'node:util';
import { commandHelp, commands, overview } from './commands.js';
import { describeFailure } from './user-facing-error.js';

function fail(message: string): number {
  process.stderr.write(`svc: ${message}\n`);
  return 1;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(overview());
    return 1;
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    const about = rest[0] === undefined ? undefined : commands.find((c) => c.name === rest[0]);
    process.stdout.write(about ? commandHelp(about) : overview());
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) return fail(`unknown command "${name}"\n\n${overview()}`);

  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    return fail(`${(err as Error).message}\n\n${commandHelp(command)}`);
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
    return await command.run(values, positionals);
  } catch (err) {
    return fail(describeFailure(err, command.name));
  }
}
