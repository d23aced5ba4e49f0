/**
 * The response headers of every page: never cached, never framed (RFC 9700 §4.16,
 * clickjacking: an approve button under someone else's page), no referrer (a URL may carry a
 * user code or an authorization request), and a Content-Security-Policy that allows the one
 * inline style sheet by its hash, the deployment's style sheet and logo by their exact URLs
 * (`branding.ts`) and nothing else, no script unless named, and forms (and the redirects that
 * follow them) only to this origin and the one the page hands the browser to.
 */
import { defaultBranding, type Branding } from './branding.js';

export interface PageHeaderOptions {
  /** An origin besides our own that forms and redirects may reach, e.g. the client's redirect URI. */
  readonly formTarget?: string | undefined;
  /** ISSUE 34: more origins forms may be redirected to (the upstream identity providers). */
  readonly formTargets?: readonly string[] | undefined;
  /** A script the page may run, by its CSP hash source (the form_post page). */
  readonly scriptHash?: string | undefined;
  /** Extra `style-src` sources (a plugin page's style sheet host). */
  readonly styleSrc?: string | undefined;
  /** The deployment's look; default the built-in one. */
  readonly branding?: Branding | undefined;
}

/**
 * CSP3 §2.3.1 source expression of exactly one file: origin and path, without the query (a
 * source has none); `;` and `,` would end the directive or the policy, so they are escaped.
 */
export function exactSource(uri: string): string {
  const url = new URL(uri);
  return `${url.origin}${url.pathname.replace(/;/g, '%3B').replace(/,/g, '%2C')}`;
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
  const branding = options.branding ?? defaultBranding;
  const sheet = branding.stylesheetHref ? ` ${exactSource(branding.stylesheetHref)}` : '';
  const style = `style-src ${branding.cssHash}${sheet}${options.styleSrc ? ` ${options.styleSrc}` : ''};`;
  const img = branding.logoSrc ? ` img-src ${exactSource(branding.logoSrc)};` : '';
  const script = options.scriptHash ? ` script-src ${options.scriptHash};` : '';
  return {
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': `default-src 'none'; ${style}${img}${script} form-action 'self'${sourceOf(options.formTarget)}${(options.formTargets ?? []).map(sourceOf).join('')}; frame-ancestors 'none'; base-uri 'none'`,
  };
}
