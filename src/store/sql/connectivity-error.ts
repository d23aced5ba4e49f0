const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
]);

// PostgreSQL SQLSTATEs: class 08 is "connection exception"; the others are a server going away,
// refusing connections, or a statement/lock timeout firing.
const POSTGRES_UNAVAILABLE_STATES = new Set(['57014', '57P01', '57P02', '57P03', '53300', '55P03']);

const PG_CLIENT_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /query read timeout/i,
  /connection timeout/i,
  /not queryable/i,
];

function isSqliteUnavailable(code: string): boolean {
  return (
    code.startsWith('SQLITE_BUSY') ||
    code.startsWith('SQLITE_LOCKED') ||
    code.startsWith('SQLITE_IOERR') ||
    code.startsWith('SQLITE_CANTOPEN')
  );
}

/**
 * Short, value-free description of why the database could not be used (e.g. `ECONNREFUSED`,
 * `57014`), or `undefined` when `error` is not a connectivity or timeout problem.
 */
export function connectivityReason(error: unknown, depth = 0): string | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const { code, message, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || isSqliteUnavailable(code)) return code;
    if (code.startsWith('08') || POSTGRES_UNAVAILABLE_STATES.has(code)) return `SQLSTATE ${code}`;
  }
  // Only pg's own client-side errors lack a code; a server error's message may quote data.
  if (typeof code !== 'string' && typeof message === 'string') {
    const pattern = PG_CLIENT_MESSAGES.find((p) => p.test(message));
    if (pattern) return pattern.source.replace(/\\/g, '');
  }
  // Node reports a refused dual-stack connect as an AggregateError of per-address errors.
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const reason = connectivityReason(inner, depth + 1);
      if (reason) return reason;
    }
  }
  return connectivityReason(cause, depth + 1);
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** PostgreSQL's `deadlock_detected`: it aborted the statement, so nothing of it was written. */
export function isDeadlock(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '40P01';
}
