/**
 * The response headers of every page: never cached, never framed (RFC 9700 §4.16,
 * clickjacking: an approve button under someone else's page), no referrer (a URL may carry a
 * user code or an authorization request), and a Content-Security-Policy that allows the one
 * style sheet by its hash, no script unless named, and forms (and the redirects that follow
 * them) only to this origin and the one the page hands the browser to.
 */
import { cssHash } from './styles.js';

export interface PageHeaderOptions {
  /** An origin besides our own that forms and redirects may reach, e.g. the client's redirect URI. */
  readonly formTarget?: string | undefined;
  /** ISSUE 34: more origins forms may be redirected to (the upstream identity providers). */
  readonly formTargets?: readonly string[] | undefined;
  /** A script the page may run, by its CSP hash source (the form_post page). */
  readonly scriptHash?: string | undefined;
  /** Extra `style-src` sources (a plugin page's style sheet host). */
  readonly styleSrc?: string | undefined;
}

/** The origin of `uri` as a CSP source (a custom scheme as `scheme:`), or '' when it is none. */
function sourceOf(uri: string | undefined): string {
  if (uri === undefined) return '';
  try {
    const url = new URL(uri);
    return url.origin !== 'null' ? ` ${url.origin}` : ` ${url.protocol}`;
  } catch {
    return '';
  }
}

export function pageHeaders(options: PageHeaderOptions = {}): Record<string, string> {
  const style = `style-src ${cssHash}${options.styleSrc ? ` ${options.styleSrc}` : ''};`;
  const script = options.scriptHash ? ` script-src ${options.scriptHash};` : '';
  return {
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': `default-src 'none'; ${style}${script} form-action 'self'${sourceOf(options.formTarget)}${(options.formTargets ?? []).map(sourceOf).join('')}; frame-ancestors 'none'; base-uri 'none'`,
  };
}
