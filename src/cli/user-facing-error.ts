/**
 * What the user reads when a command fails: one line saying what is wrong and what to do,
 * never a stack trace. Errors with a known cause (a port in use, a file that cannot be read)
 * get their own advice; anything else is its message alone.
 */
import { BootError } from '../config/boot-error.js';

/** An error the command raised on purpose; its message is already the sentence for the user. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

interface SystemError extends Error {
  code?: string;
  syscall?: string;
  path?: string;
  port?: number;
  address?: string;
}

export function describeFailure(error: unknown, command: string | undefined): string {
  if (error instanceof BootError) {
    return `cannot start [${error.code}]\n  ${error.problems.join('\n  ')}`;
  }
  if (error instanceof CliError) return error.message;
  const err = (error instanceof Error ? error : new Error(String(error))) as SystemError;
  switch (err.code) {
    case 'EADDRINUSE':
      return `cannot listen on ${err.address ?? 'the configured host'}:${err.port ?? '?'}: the port is in use. Stop the other process, or choose another port with --port <n> (or PORT=<n>).`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${err.address ?? 'the configured host'}: no network interface has that address. Check "host" in the config.`;
    case 'EACCES':
    case 'EPERM':
      return err.syscall === 'listen'
        ? `not allowed to listen on port ${err.port ?? '?'}: ports below 1024 need privileges. Choose a port from 1024 up with --port <n>.`
        : `permission denied${err.path ? ` reading ${err.path}` : ''}: check the file's owner and mode.`;
    case 'ENOENT':
      return `no such file${err.path ? `: ${err.path}` : ''}. Check the path (relative paths are taken from the current folder).`;
    case 'EISDIR':
      return `${err.path ?? 'the path'} is a folder, not a file.`;
    default:
      return `${command ?? 'svc'} failed: ${err.message || err.name}`;
  }
}
