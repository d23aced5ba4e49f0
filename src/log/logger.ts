/**
 * Structured JSON logs (pino). Pretty output only when a person watches a terminal.
 * Secrets never reach a log line: callers log ids and reasons, never parameters or headers,
 * and the redact list below is a second line of defence for fields that slip through.
 */
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { stdoutDestination } from './log-destination.js';

export type AppLogger = PinoLogger;

/** The service's own secret-bearing names; plugins' credential parameters are added by `withRedacted`. */
const hostSecrets = ['password', 'token', 'access_token', 'refresh_token', 'device_code', 'user_code', 'authorization'];
const censor = '[redacted]';

function redactPaths(names: Iterable<string>): string[] {
  const paths = ['headers.authorization', 'req.headers.authorization', 'req.headers.cookie'];
  // pino's paths are property names or `*.name`; a name that is not an identifier is quoted.
  for (const name of new Set([...hostSecrets, ...names])) {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : `[${JSON.stringify(name)}]`;
    paths.push(key, key.startsWith('[') ? `*${key}` : `*.${key}`);
  }
  return paths;
}

const redact = { paths: redactPaths([]), censor };

/**
 * A logger that also redacts the credential parameters the loaded plugins declared
 * (`ParameterDeclaration.credential`): known only once they are built, so a child of the root.
 */
export function withRedacted(logger: AppLogger, credentialParameters: Iterable<string>): AppLogger {
  return logger.child({}, { redact: { paths: redactPaths(credentialParameters), censor } });
}

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
