/** Thrown inside the validator to stop at the first failed check; turned into `{ success: false }`. */
export class TokenRejected extends Error {
  override readonly name = 'TokenRejected';
}

export function reject(reason: string): never {
  throw new TokenRejected(reason);
}

/** A caller-controlled value, quoted and cut short, fit for a log line. */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
