/**
 * Structured JSON logs (pino). Pretty output only when a person watches a terminal.
 * Secrets never reach a log line: callers log ids and reasons, never parameters or headers,
 * and the redaction below (redact-fields.ts) is a second line of defence for fields that slip
 * through.
 */
import { pino, type Bindings, type ChildLoggerOptions, type DestinationStream, type Logger as PinoLogger, type LoggerOptions } from 'pino';
import { errSerializer, fieldRedactor, type FieldRedactor } from './redact-fields.js';
import { stdoutDestination } from './log-destination.js';

export type AppLogger = PinoLogger;

/** The service's own secret-bearing names; plugins' credential parameters are added by `withRedacted`. */
const hostSecrets = ['password', 'token', 'access_token', 'refresh_token', 'device_code', 'user_code', 'authorization', 'cookie'];
const censor = '[redacted]';

const redactorSym = Symbol('svc.log.redactor');
type Redacting = AppLogger & { [redactorSym]: FieldRedactor };

/**
 * The options that make a pino logger redact `names` (see redact-fields.ts): the logged fields
 * through `formatters.log`, errors before pino's serializer sees them.
 */
function redacting(names: Iterable<string>) {
  const redactor = fieldRedactor([...hostSecrets, ...names], censor);
  const options = { formatters: { log: redactor }, serializers: { err: errSerializer } } satisfies ChildLoggerOptions & LoggerOptions;
  return { redactor, options };
}

/**
 * pino applies no formatter to a child's bindings (a child resets it), so the root's `child` is
 * replaced by one that redacts them with the nearest redactor; every descendant inherits it.
 */
function redactBindings(logger: AppLogger, redactor: FieldRedactor): AppLogger {
  const pinoChild = logger.child as unknown as (this: AppLogger, bindings: Bindings, options?: ChildLoggerOptions) => AppLogger;
  const child = function (this: Redacting, bindings: Bindings, options?: ChildLoggerOptions): AppLogger {
    return pinoChild.call(this, this[redactorSym](bindings), options);
  } as unknown as AppLogger['child'];
  return Object.assign(logger, { [redactorSym]: redactor, child });
}

/**
 * A logger that also redacts the credential parameters the loaded plugins declared
 * (`ParameterDeclaration.credential`): known only once they are built, so a child of the root.
 */
export function withRedacted(logger: AppLogger, credentialParameters: Iterable<string>): AppLogger {
  const { redactor, options } = redacting(credentialParameters);
  const child = logger.child({}, options);
  // Own property: this child's descendants redact their bindings with the wider set.
  return Object.assign(child, { [redactorSym]: redactor });
}

/**
 * A logger writing to `destination` (tests), else to standard output: through pino-pretty's
 * worker when a person watches a terminal, else as JSON through the asynchronous, bounded
 * destination (`log-destination.ts`).
 */
export function createLogger(level: string, destination?: DestinationStream): AppLogger {
  const { redactor, options } = redacting([]);
  const make = (settings: LoggerOptions, stream?: DestinationStream): AppLogger =>
    redactBindings(stream ? pino({ level, ...options, ...settings }, stream) : pino({ level, ...options, ...settings }), redactor);
  if (destination) return make({ base: undefined }, destination);
  const base = { pid: process.pid };
  const pretty = process.stdout.isTTY && !process.env.CI && process.env.NODE_ENV !== 'production';
  if (pretty) return make({ base, transport: { target: 'pino-pretty', options: { colorize: true, ignore: 'pid' } } });
  const stdout = stdoutDestination();
  const logger = make({ base }, stdout.stream);
  stdout.onDrops((dropped) => logger.warn({ dropped }, 'log lines dropped: standard output did not keep up (see svc_log_lines_dropped_total)'));
  return logger;
}
