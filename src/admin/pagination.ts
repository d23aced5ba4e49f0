/**
 * Paginated lists: `limit` (1 to 200, default 50) and an opaque `cursor` that the previous page
 * gave as `next`. The cursor is the last item's sort key, base64url-encoded: opaque to callers,
 * stable while items come and go (a keyset, not an offset, so nothing is skipped or repeated
 * when an item before the page is removed).
 */
import { z } from '../config/fields.js';
import { AdminProblem } from './problem.js';

export const maxLimit = 200;
export const defaultLimit = 50;

export const pageQuery = z.strictObject({
  limit: z.string().regex(/^[1-9]\d{0,2}$/, { error: `expected a whole number from 1 to ${maxLimit}` }).optional()
    .describe(`How many items at most (1 to ${maxLimit}, default ${defaultLimit}).`),
  cursor: z.string().regex(/^[\w-]{1,700}$/, { error: 'expected the opaque cursor of a previous page' }).optional()
    .describe('The `next` of the previous page.'),
});

export interface Page {
  readonly limit: number;
  /** The sort key after which the page starts. */
  readonly after: string | undefined;
}

export function pageOf(query: { limit?: string | undefined; cursor?: string | undefined }): Page {
  const limit = query.limit === undefined ? defaultLimit : Number(query.limit);
  if (limit > maxLimit) throw new AdminProblem(400, `limit: expected a whole number from 1 to ${maxLimit}, got ${limit}.`);
  return { limit, after: query.cursor === undefined ? undefined : Buffer.from(query.cursor, 'base64url').toString('utf8') };
}

export const cursorOf = (key: string): string => Buffer.from(key, 'utf8').toString('base64url');

/** A page of a list held whole in memory (clients, users), sorted by `keyOf`. */
export function pageOfList<T>(items: readonly T[], keyOf: (item: T) => string, page: Page): { items: T[]; next: string | undefined } {
  const sorted = [...items].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const rest = page.after === undefined ? sorted : sorted.filter((item) => keyOf(item) > page.after!);
  return paged(rest.slice(0, page.limit + 1), keyOf, page.limit);
}

/** Given up to `limit + 1` items in order: the page, and the cursor of the next one when there is more. */
export function paged<T>(items: readonly T[], keyOf: (item: T) => string, limit: number): { items: T[]; next: string | undefined } {
  const shown = items.slice(0, limit);
  return { items: shown, next: items.length > limit ? cursorOf(keyOf(shown[shown.length - 1]!)) : undefined };
}
