/**
 * Structured JSON logs (pino). Pretty output only when a person watches a terminal.
 * Secrets never reach a log line: callers log ids and reasons, never parameters or headers,
 * and the redact list below is a second line of defence for fields that slip through.
 */
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { stdoutDestination } from './log-destination.js';

export type AppLogger = PinoLogger;

const redact = {
  paths: [
    'client_secret', '*.client_secret', 'client_assertion', '*.client_assertion', 'password', '*.password',
    'token', '*.token', 'access_token', '*.access_token', 'refresh_token', '*.refresh_token', 'device_code',
    '*.device_code', 'user_code', '*.user_code', 'authorization', '*.authorization', 'headers.authorization',
    'req.headers.authorization', 'req.headers.cookie', 'subject_token', 'actor_token', '*.subject_token', '*.actor_token',
  ],
  censor: '[redacted]',
};

/**
 * A logger writing to `destination` (tests), else to standard output: through pino-pretty's
 * worker when a person watches a terminal, else as JSON through the asynchronous, bounded
 * destination (`log-destination.ts`).
 */
export function createLogger(level: string, destination?: DestinationStream): AppLogger {
  if (destination) return pino({ level, redact, base: undefined }, destination);
  const base = { pid: process.pid };
  const pretty = process.stdout.isTTY && !process.env.CI && process.env.NODE_ENV !== 'production';
  if (pretty) return pino({ level, redact, base, transport: { target: 'pino-pretty', options: { colorize: true, ignore: 'pid' } } });
  const stdout = stdoutDestination();
  const logger = pino({ level, redact, base }, stdout.stream);
  stdout.onDrops((dropped) => logger.warn({ dropped }, 'log lines dropped: standard output did not keep up (see svc_log_lines_dropped_total)'));
  return logger;
}
