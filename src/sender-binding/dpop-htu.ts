/**
 * RFC 9449 §4.3 check 9: `htu` matches the request's URI "ignoring any query and fragment
 * parts". Both sides go through the WHATWG URL parser, so scheme and host case and a default
 * port do not matter; the request's URI is the service's public one (the issuer's origin and
 * the endpoint's path), never a `Host` header the caller chose.
 */

/** `scheme://host[:port]/path`, or `undefined` for something that is not an absolute http(s) URL. */
export function comparableHtu(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return `${url.origin}${url.pathname}`;
}
