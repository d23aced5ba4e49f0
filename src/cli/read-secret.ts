/**
 * Reads a secret or password from standard input, so it stays out of the shell history and
 * the process list: piped (`printf %s "$SECRET" | svc hash-secret`) or typed at a prompt that
 * does not echo.
 */
import { CliError } from './user-facing-error.js';

export async function readSecret(what: string, input: NodeJS.ReadStream = process.stdin): Promise<string> {
  const value = input.isTTY ? await promptHidden(`${what}: `, input) : await readPiped(input);
  if (value.length === 0) throw new CliError(`no ${what} given: pass it as an argument, pipe it on standard input, or type it at the prompt.`);
  return value;
}

async function readPiped(input: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(chunk as Buffer);
  // One trailing newline (from `echo` or a file) is not part of the secret.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

function promptHidden(prompt: string, input: NodeJS.ReadStream): Promise<string> {
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error): void => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string): void => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new CliError('cancelled.'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    input.on('data', onData);
  });
}
