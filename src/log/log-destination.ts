/**
 * Where log lines go when the service runs: standard output, written asynchronously. A
 * synchronous write is one system call per line, and at `info` (a line per token issued) that
 * cost as much server CPU as the rest of the request (issue 21). Lines are gathered and written
 * in chunks of at least 64 KiB (up to 1 MiB when the consumer lags), and at the latest every
 * 100 ms, so a quiet server's lines still appear at once. In 4 KiB chunks the write calls were
 * still about 3 % of a SQLite reference token's CPU (issue 40); a busy server now makes a few
 * dozen a second.
 *
 * The buffer is bounded: when the consumer (a terminal, a pipe, a log shipper) cannot keep up
 * and 16 MiB are waiting, further lines are dropped rather than blocking the event loop or
 * growing without end. Nothing is dropped silently: the count is kept for the metrics
 * (`svc_log_lines_dropped_total`) and, once the backlog has room again, a warning line says
 * how many were lost. Whatever is buffered is written before the process exits, crash included.
 */
import { pino, type DestinationStream } from 'pino';

/** Chunk size before a write, the largest write, and the latest a line waits. */
const minLength = 64 * 1024;
const maxWrite = 1024 * 1024;
const flushEveryMs = 100;
const maxBuffered = 16 * 1024 * 1024;

export interface LogDestination {
  readonly stream: DestinationStream;
  /** Lines dropped since start because the consumer was too slow. */
  dropped(): number;
  /** Writes out everything buffered, synchronously (shutdown, crash). */
  flushSync(): void;
  /** Sets the function that reports drops once the backlog has room (a warning log line). */
  onDrops(report: (dropped: number) => void): void;
}

let stdout: LogDestination | undefined;

/** The process's one standard-output destination (created on first use). */
export function stdoutDestination(): LogDestination {
  return (stdout ??= openStdout());
}

/** Lines dropped so far by this process's standard-output destination (0 when it has none). */
export function logLinesDropped(): number {
  return stdout?.dropped() ?? 0;
}

function openStdout(): LogDestination {
  // Buffer mode, each line encoded once as it comes: in its default (string) mode sonic-boom
  // measures the whole pending chunk (Buffer.byteLength of up to 16 KiB) on every line, which
  // took ~2 µs a line under load, more than pino spent building it (issue 21).
  const boom = pino.destination({ dest: 1, sync: false, minLength, maxWrite, maxLength: maxBuffered, periodicFlush: flushEveryMs, contentMode: 'buffer' });
  const stream: DestinationStream = { write: (line: string) => void boom.write(Buffer.from(line) as unknown as string) };
  let dropped = 0;
  let unreported = 0;
  let report: ((count: number) => void) | undefined;
  let reportTimer: NodeJS.Timeout | undefined;

  boom.on('drop', () => {
    dropped++;
    unreported++;
    // Reported once a second at most, when the buffer has drained enough to take the line.
    reportTimer ??= setTimeout(() => {
      reportTimer = undefined;
      const count = unreported;
      unreported = 0;
      report?.(count);
    }, 1000).unref();
  });

  const flushSync = (): void => {
    try {
      boom.flushSync();
    } catch {
      // A closed or broken stdout: nothing more can be written anyway.
    }
  };
  process.once('exit', flushSync);

  return {
    stream,
    dropped: () => dropped,
    flushSync,
    onDrops(fn) {
      report = fn;
    },
  };
}
