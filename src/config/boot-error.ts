/**
 * Errors that stop start-up: a bad config or a broken plugin. Each has a stable code and
 * says what was expected, what was found and how to fix it. Never logged-and-skipped.
 */
export type BootErrorCode =
  | 'CONFIG_NOT_FOUND'
  | 'CONFIG_LOAD_FAILED'
  | 'CONFIG_INVALID'
  | 'PLUGIN_DIR_MISSING'
  | 'PLUGIN_LOAD_FAILED'
  | 'PLUGIN_INVALID'
  | 'PLUGIN_CONFLICT'
  | 'STORE_UNAVAILABLE'
  | 'KEYS_INVALID'
  | 'TRACING_FAILED'
  | 'CLIENT_CONFLICT'
  | 'USER_CONFLICT';

export class BootError extends Error {
  override readonly name = 'BootError';
  readonly code: BootErrorCode;
  /** One line per problem. */
  readonly problems: readonly string[];

  constructor(code: BootErrorCode, problems: string | readonly string[], options?: { cause?: unknown }) {
    const list = typeof problems === 'string' ? [problems] : problems;
    super(list.length === 1 ? list[0] : `${list.length} problems:\n  ${list.join('\n  ')}`, options);
    this.code = code;
    this.problems = list;
  }
}
