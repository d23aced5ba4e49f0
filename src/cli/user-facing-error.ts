/**
 * What the user reads when a command fails: one line saying what is wrong and what to do,
 * never a stack trace. Errors with a known cause (a port in use, a file that cannot be read)
 * get their own advice; anything else is its message alone.
 */
import { BootError } from '../config/boot-error.js';
import { isStoreUnavailableError } from '../sdk/store-errors.js';

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
  hostname?: string;
}

const where = (err: SystemError): string => (err.address ? ` at ${err.address}${err.port ? `:${err.port}` : ''}` : '');

export function describeFailure(error: unknown, command: string | undefined): string {
  if (error instanceof BootError) {
    return `cannot start [${error.code}]\n  ${error.problems.join('\n  ')}`;
  }
  if (error instanceof CliError) return error.message;
  // The store wraps what the network said (ECONNREFUSED...); the words for that are below.
  if (isStoreUnavailableError(error) && (error.cause as SystemError | undefined)?.code !== undefined) return describeFailure(error.cause, command);
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
    case 'ENOTDIR':
      return `${err.path ? `part of ${err.path}` : 'part of the path'} is a file, not a folder.`;
    case 'EEXIST':
      return `${err.path ?? 'the file'} already exists; nothing was overwritten.`;
    case 'ENOSPC':
      return `the disk is full${err.path ? ` (writing ${err.path})` : ''}: free some space and try again.`;
    case 'EROFS':
      return `${err.path ?? 'the path'} is on a read-only file system.`;
    case 'ECONNREFUSED':
      return `nothing answers${where(err)}: the connection was refused. Is the server (the database, Redis, the service) running, and is the address in the config right?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host name${err.hostname ? ` "${err.hostname}"` : ''} could not be found: check the address in the config and the network's name service.`;
    case 'ETIMEDOUT':
      return `no answer${where(err)} in time: the server is down or a firewall drops the connection.`;
    case 'ECONNRESET':
      return `the connection${where(err)} was closed by the other side; try again, and check that server's log.`;
    default:
      return `${command ?? 'svc'} failed: ${err.message || err.name}`;
  }
}
