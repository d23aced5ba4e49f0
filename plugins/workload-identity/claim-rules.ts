/**
 * Conditions on a token's claims, for a trusted issuer (every token) and a `FederatedCredential`
 * (its client's tokens). A condition is exact by default: a string, or a list of strings any one
 * of which the claim must equal. A pattern only where it is written as one, `{ "pattern": "..." }`,
 * where `*` stands for any run of characters (nothing else is special).
 *
 * A claim is named by its path, `/` between levels: `repository_owner` (GitHub),
 * `kubernetes.io/namespace` (Kubernetes nests its claims under `kubernetes.io`, a name with a dot).
 */

export type Condition =
  | { readonly kind: 'exact'; readonly values: readonly string[] }
  | { readonly kind: 'pattern'; readonly pattern: string };

export type ClaimRules = ReadonlyMap<string, Condition>;

/** Reads one condition; throws a message for a bad one. */
export function readCondition(value: unknown): Condition {
  if (typeof value === 'string') return { kind: 'exact', values: [value] };
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return { kind: 'exact', values: Object.freeze([...value]) };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { pattern, ...rest } = value as Record<string, unknown>;
    if (typeof pattern === 'string' && pattern !== '' && Object.keys(rest).length === 0) return { kind: 'pattern', pattern };
  }
  throw new Error(`expected a string, a non-empty list of strings or { "pattern": "..." }, found ${JSON.stringify(value)}`);
}

export function readClaimRules(raw: unknown): ClaimRules {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`expected an object of claim name to condition, found ${JSON.stringify(raw)}`);
  const rules = new Map<string, Condition>();
  for (const [name, value] of Object.entries(raw)) {
    if (name === '' || name.split('/').includes('')) throw new Error(`claim name ${JSON.stringify(name)} is empty or has an empty level`);
    try {
      rules.set(name, readCondition(value));
    } catch (error) {
      throw new Error(`${JSON.stringify(name)}: ${(error as Error).message}`);
    }
  }
  return rules;
}

/** `*` matches any run of characters. Linear-time matching (no regular expression, so no backtracking blow-up). */
export function matchesPattern(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

export function satisfies(condition: Condition, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  return condition.kind === 'exact' ? condition.values.includes(value) : matchesPattern(condition.pattern, value);
}

/** The claim at `path` (levels split on `/`), or undefined. */
export function claimAt(claims: Readonly<Record<string, unknown>>, path: string): unknown {
  let value: unknown = claims;
  for (const level of path.split('/')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, level)) return undefined;
    value = (value as Record<string, unknown>)[level];
  }
  return value;
}

/** The first rule the claims break, described for the log; undefined when all hold. */
export function brokenRule(rules: ClaimRules, claims: Readonly<Record<string, unknown>>): string | undefined {
  for (const [path, condition] of rules) {
    const value = claimAt(claims, path);
    if (!satisfies(condition, value)) {
      const wanted = condition.kind === 'exact' ? JSON.stringify(condition.values.length === 1 ? condition.values[0] : condition.values) : `pattern ${JSON.stringify(condition.pattern)}`;
      const shown = JSON.stringify(value) ?? 'absent';
      return `claim ${path} is ${shown.length > 80 ? `${shown.slice(0, 77)}...` : shown}, expected ${wanted}`;
    }
  }
  return undefined;
}
