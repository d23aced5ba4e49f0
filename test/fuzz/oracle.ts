/**
 * What no answer may be: a 5xx other than 503 (and other than 501 for a method the service
 * implements nowhere, RFC 9110 §15.6.2), a stack trace, a file path, SQL text or a configured
 * secret the request did not carry itself. Returns why, or undefined for a good answer.
 */
import type { FuzzResponse } from './request.js';

/** Methods the router implements for some resource; any other is answered 501 by design. */
const implemented = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const leaks: Array<[string, RegExp]> = [
  ['a stack frame', /\bat (?:async )?[\w$.<>]+ \(?(?:file:\/\/|node:|\/)[^\s)]*:\d+:\d+/],
  ['a stack frame', /\n\s+at [^\n]+:\d+:\d+/],
  ['an error with a path', /\b\w*Error\b[^\n]{0,200}(?:\/[\w.-]+){2,}/],
  ['a module path', /node_modules|file:\/\/|\.ts:\d+|\.js:\d+|\.mjs:\d+/],
  ['SQL text', /\b(?:select\s+[\w*,\s"]+\s+from|insert\s+into|update\s+\w+\s+set|delete\s+from|create\s+table)\b|SQLITE_|sqlite3?\b|syntax error at or near/i],
  // PostgreSQL's own names, lower case as the server writes them: a bare "pg_" (any case) also
  // turns up inside random base64url (CSRF tokens, handles) and was a false finding.
  ['SQL text', /\bpg_(?:catalog|class|namespace|advisory\w*|stat\w*|tables|attribute|type|sleep|terminate_backend)\b/],
];

export interface Expectation {
  readonly method: string;
  /** Everything the request carried, as text: a secret the caller sent may come back (a form echoes a field). */
  readonly sent: string;
  readonly secrets: readonly string[];
  /** Folders whose names must never show (the repository, the temp folder). */
  readonly paths: readonly string[];
}

export function judge(res: FuzzResponse, expect: Expectation): string | undefined {
  if (res.status >= 500 && res.status !== 503 && !(res.status === 501 && !implemented.has(expect.method))) {
    return `status ${res.status}`;
  }
  const text = `${JSON.stringify(res.headers)}\n${res.body}`;
  for (const [what, pattern] of leaks) {
    const found = pattern.exec(text);
    if (found && !expect.sent.includes(found[0])) return `${what} in the answer: ${JSON.stringify(found[0].slice(0, 120))}`;
  }
  for (const path of expect.paths) if (text.includes(path) && !expect.sent.includes(path)) return 'a server file path in the answer';
  for (const secret of expect.secrets) if (text.includes(secret) && !expect.sent.includes(secret)) return 'a configured secret in the answer';
  return undefined;
}
