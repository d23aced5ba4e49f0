/**
 * Structured JSON logs (pino). Pretty output only when a person watches a terminal.
 * Secrets never reach a log line: callers log ids and reasons, never parameters or headers,
 * and the redact list below is a second line of defence for fields that slip through.
 */
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

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

export function createLogger(level: string, destination?: DestinationStream): AppLogger {
  if (destination) return pino({ level, redact, base: undefined }, destination);
  const pretty = process.stdout.isTTY && !process.env.CI && process.env.NODE_ENV !== 'production';
  return pino({
    level,
    redact,
    base: { pid: process.pid },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, ignore: 'pid' } } } : {}),
  });
}
