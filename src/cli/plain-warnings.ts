/**
 * Log lines of a one-shot command (`check-config`, `plugins`), which builds the app only to
 * check it: a person reads the output, so each warning is one `svc: warning:` line on stderr
 * instead of a JSON log line mixed into the command's answer.
 */
import type { DestinationStream } from 'pino';

export function plainWarnings(out: NodeJS.WritableStream = process.stderr): DestinationStream {
  return {
    write(line: string): void {
      let msg: unknown;
      try {
        msg = (JSON.parse(line) as { msg?: unknown }).msg;
      } catch {
        msg = line.trim();
      }
      if (typeof msg === 'string' && msg !== '') out.write(`svc: warning: ${msg}\n`);
    },
  };
}
