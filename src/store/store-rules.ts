import type { GrantFilter } from './store.js';

/** An empty filter would delete every grant; that is never what a caller meant. */
export function assertFilterNotEmpty(filter: GrantFilter): void {
  const { subjectId, clientId, sessionId, type } = filter;
  if (subjectId === undefined && clientId === undefined && sessionId === undefined && type === undefined) {
    throw new Error('removeAll needs at least one of subjectId, clientId, sessionId or type.');
  }
}

export function duplicateSigningKey(kid: string): Error {
  return new Error(`A signing key with kid "${kid}" already exists.`);
}
