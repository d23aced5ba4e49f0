/**
 * The zod declarations the admin resources share: times, a page of a list, a problem (RFC 9457).
 * Each resource's own declarations live beside its routes (`routes/`).
 */
import { z } from '../config/fields.js';

/** Epoch milliseconds as the API shows them: RFC 3339 date-times in UTC. */
export const time = z.iso.datetime().describe('An RFC 3339 date-time in UTC.');
export const isoTime = (ms: number): string => new Date(ms).toISOString();
export const isoTimeOrUndefined = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : isoTime(ms));

/** Drops the members whose value is `undefined`, so an answer holds only what its schema allows. */
export function defined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export const pageOf = <T extends z.ZodType>(item: T, description: string) => z.strictObject({
  items: z.array(item).describe(description),
  next: z.string().optional().describe('The cursor of the next page; absent on the last page.'),
});

export const problemSchema = z.object({
  type: z.string().describe('A URI naming the kind of problem.'),
  title: z.string(),
  status: z.int(),
  detail: z.string().describe('What went wrong with this request, and what to do.'),
  errors: z.array(z.strictObject({ path: z.string(), message: z.string() })).optional()
    .describe('Each field the request got wrong, for a refused path, query or body.'),
}).describe('RFC 9457 problem details.');

/** A count of what a revocation removed. */
export const revokedSchema = z.strictObject({ revoked: z.int().min(0).describe('How many stored grants were removed.') }).meta({ id: 'Revoked' });

/** A path segment naming a resource: what a client id or name may be. */
export const idParam = z.string().min(1).max(200);
