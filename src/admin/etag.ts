/**
 * Entity tags (RFC 9110 §8.8.3) of the admin API's resources and the `If-Match` check (§13.1.1)
 * that keeps two operators from overwriting each other: an update or delete without `If-Match`
 * is 428 (RFC 6585 §3), one whose tag is not the resource's current one is 412.
 */
import { createHash } from 'node:crypto';
import { AdminProblem } from './problem.js';

/** A strong tag of the representation: the same JSON is the same tag on every node. */
export function etagOf(representation: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(representation)).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 §13.1.1: a list of tags or `*`; a weak tag never matches (strong comparison). */
function matches(header: string, current: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').map((tag) => tag.trim()).includes(current);
}

/** Throws 412 unless `ifMatch` (already known to be present) names the resource's current tag. */
export function checkIfMatch(ifMatch: string, current: string): void {
  if (!matches(ifMatch, current)) {
    throw new AdminProblem(412, 'The resource changed since it was read: read it again (its new ETag), then retry with If-Match set to it.');
  }
}

export function requireIfMatch(ifMatch: string | undefined): string {
  if (ifMatch === undefined || ifMatch.trim() === '') {
    throw new AdminProblem(428, 'Send If-Match with the ETag of the resource as you last read it, so a change made meanwhile is not overwritten.');
  }
  return ifMatch;
}
