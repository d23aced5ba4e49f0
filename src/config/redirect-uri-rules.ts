/**
 * Which redirect URIs a client may have: the one rule the config file (start-up), `svc clients`
 * (through the same config checks) and dynamic registration apply. A redirect URI is compared as
 * an exact string (RFC 9700 §2.1), so a value that a browser or client would never send back as
 * written, or that is not what its author meant, is refused with what to write instead:
 *
 * - `localhost:3000/callback` is read as the custom scheme `localhost:` (RFC 3986 §3.1);
 * - a space, tab or line break (a trailing space is invisible in a config file);
 * - `https://app.example.com/*`: `*` is no wildcard here, it would be stored literally;
 * - `HTTP://LOCALHOST:3000/cb`, `https:app.example.com`: not the form a browser sends back;
 * - a custom scheme not in reverse-domain form, such as `myapp:/cb` (RFC 8252 §7.1: a private-use
 *   scheme is a domain name the developer controls, reversed, e.g. `com.example.app:/callback`);
 * - a fragment (RFC 6749 §3.1.2), user information, and the schemes that run or read something.
 *
 * `message` never quotes the value, so it may answer a registrant; `suggestion` is the URI the
 * author probably meant, for the operator's messages.
 */

export type RedirectUriProblemCode =
  | 'not-absolute' | 'whitespace' | 'wildcard' | 'no-scheme' | 'not-normal' | 'fragment' | 'user-info'
  | 'scheme-not-allowed' | 'custom-scheme' | 'http-not-loopback';

export interface RedirectUriProblem {
  readonly code: RedirectUriProblemCode;
  /** What is wrong and what to write instead, quoting nothing of the value. */
  readonly message: string;
  /** What is wrong, without the advice: what precedes a suggestion. */
  readonly reason: string;
  /** The URI the author probably meant, when it can be told. */
  readonly suggestion?: string;
}

export interface RedirectUriContext {
  /** The issuer is https: an `http` redirect URI is then allowed only on a loopback address. */
  readonly httpsIssuer: boolean;
}

/** RFC 8252 §7.3 and §8.3: loopback redirect URIs use an IP literal; `localhost` is tolerated. */
const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function isLoopbackHost(hostname: string): boolean {
  return loopbackHosts.has(hostname);
}

const example = '"https://app.example.com/callback"';
/** Schemes that run code or read local data when navigated to. */
const neverRedirectTargets = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);
/** `host:port/path` or `host/path` written without a scheme: `localhost:3000/callback`, `app.example.com/cb`. */
const schemeless = /^([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?(?=[/?]|$)/i;
const controlOrSpace = /[\s\x00-\x1f\x7f]/;

function problem(code: RedirectUriProblemCode, reason: string, instead?: string, suggestion?: string): RedirectUriProblem {
  const message = instead === undefined ? reason : `${reason}; ${instead}`;
  return suggestion === undefined ? { code, message, reason } : { code, message, reason, suggestion };
}

/** `https://` for a host name, `http://` for a loopback one (RFC 8252 §7.3). */
function withScheme(value: string, host: string): string {
  return `${isLoopbackHost(host.toLowerCase()) ? 'http' : 'https'}://${value}`;
}

/** The redirect URI's problem, or `undefined` when it may be registered. */
export function redirectUriProblem(value: string, context: RedirectUriContext): RedirectUriProblem | undefined {
  if (controlOrSpace.test(value)) {
    const trimmed = value.trim();
    return problem('whitespace', 'a redirect URI must not contain spaces, tabs or line breaks (a trailing space is easy to miss)', 'remove them, or write a space in a path as %20',
      trimmed !== value && !controlOrSpace.test(trimmed) && redirectUriProblem(trimmed, context) === undefined ? trimmed : undefined);
  }
  if (value.includes('*')) {
    return problem('wildcard', 'a redirect URI is compared as an exact string (RFC 9700 §2.1), so "*" is no wildcard', `list each URI the client uses, such as ${example}`);
  }
  // Before parsing: `localhost:3000/cb` parses, as the scheme `localhost:` with the path `3000/cb`.
  const bare = schemeless.exec(value);
  if (bare && (bare[2] !== undefined || !value.includes(':'))) {
    const host = bare[1]!;
    if (bare[2] !== undefined || host.includes('.') || isLoopbackHost(host.toLowerCase())) {
      return problem('no-scheme', 'a redirect URI needs its scheme: without one, "host:port/path" is read as a custom scheme', 'write "https://" (or "http://" for a loopback address) in front', withScheme(value, host));
    }
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return problem('not-absolute', `expected an absolute URI such as ${example}`);
  }
  // RFC 6749 §3.1.2: the endpoint URI MUST NOT include a fragment component.
  if (value.includes('#')) return problem('fragment', 'a redirect URI must not contain a fragment (RFC 6749 §3.1.2)');
  const scheme = url.protocol;
  if (neverRedirectTargets.has(scheme)) return problem('scheme-not-allowed', `the scheme ${scheme} is not a redirect target`);
  const writtenScheme = value.slice(0, scheme.length);
  if (scheme === 'http:' || scheme === 'https:') {
    // As written: the authority after "//", without user information.
    const authority = value.startsWith(`${writtenScheme}//`) ? value.slice(scheme.length + 2).split(/[/?]/)[0]! : undefined;
    const host = authority?.slice(authority.lastIndexOf('@') + 1);
    if (writtenScheme !== scheme || host === undefined || host !== host.toLowerCase()) {
      const rest = authority === undefined ? url.href.slice(scheme.length + 2 + url.host.length) : value.slice(scheme.length + 2 + authority.length);
      return problem('not-normal', 'a redirect URI is compared as an exact string (RFC 9700 §2.1) and must be written as a browser sends it back',
        'the scheme and host in lower case, "//" after the scheme', `${scheme}//${url.host}${rest}`);
    }
    if (url.username + url.password !== '') return problem('user-info', 'a redirect URI must not contain user information');
    if (scheme === 'http:' && context.httpsIssuer && !isLoopbackHost(url.hostname)) {
      return problem('http-not-loopback', 'an http redirect URI is allowed only for a loopback address (127.0.0.1 or [::1], RFC 8252 §7.3) when the issuer is https', 'use https');
    }
    return undefined;
  }
  if (writtenScheme !== scheme) {
    return problem('not-normal', 'a redirect URI is compared as an exact string (RFC 9700 §2.1) and must be written as a browser sends it back', 'the scheme in lower case', scheme + value.slice(scheme.length));
  }
  // RFC 8252 §7.1: a private-use scheme is a reversed domain name the app's developer controls.
  if (!scheme.slice(0, -1).includes('.')) {
    return problem('custom-scheme', 'a custom URI scheme must be a reversed domain name you control, such as "com.example.app:/callback" (RFC 8252 §7.1)', 'for a web address write "https://"');
  }
  return undefined;
}

/** The message an operator reads (config file, CLI): the problem, and the URI to write when it can be told. */
export function redirectUriAdvice(found: RedirectUriProblem, quotedValue: string): string {
  if (found.suggestion !== undefined) return `${found.reason}; write ${JSON.stringify(found.suggestion)}`;
  return found.code === 'not-absolute' ? `${found.message}, got ${quotedValue}` : found.message;
}
