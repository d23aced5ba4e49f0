/**
 * Structured JSON logs (pino). Pretty output only when a person watches a terminal.
 * Secrets never reach a log line: callers log ids and reasons, never parameters or headers,
 * and the redact list below is a second line of defence for fields that slip through.
 */
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

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
