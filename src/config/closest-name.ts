/**
 * "Did you mean …?" for a misspelled config field, grant type or scope: the known name nearest
 * in edit distance, when it is near enough to be a typo rather than another word.
 */
import { closest, distance } from 'fastest-levenshtein';

export function closestName(found: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  // Two neighbouring letters swapped ("strat" for "start") is the commonest typo of all, but two
  // edits to Levenshtein.
  const swapped = known.find((name) => isOneSwapAway(found.toLowerCase(), name.toLowerCase()));
  if (swapped !== undefined) return swapped;
  const best = closest(found, known as string[]);
  // About one edit in three characters: "delegaton" → "delegation", not "colour" → "clients".
  const limit = Math.max(1, Math.floor(Math.max(found.length, best.length) / 3));
  return distance(found.toLowerCase(), best.toLowerCase()) <= limit ? best : undefined;
}

/** ` (did you mean "x"?)`, or nothing. */
export function didYouMean(found: string, known: readonly string[]): string {
  const name = closestName(found, known);
  return name === undefined ? '' : ` (did you mean "${name}"?)`;
}

function isOneSwapAway(a: string, b: string): boolean {
  if (a.length !== b.length || a === b) return false;
  const i = [...a].findIndex((c, k) => c !== b[k]);
  return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}
