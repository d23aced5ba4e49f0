/**
 * Which `client_id` values name a client ID metadata document (draft-ietf-oauth-client-id-
 * metadata-document-03 §3): an `https` URL with a path, without fragment, userinfo or dot
 * segments, which the deployment's `allowedHosts` (if any) allows. Anything else is an ordinary
 * client id, looked up as always.
 */

/** Long enough for any real document URL; a longer `client_id` is not fetched. */
export const maxClientIdUrlLength = 255;

/** Cheap first test on the hot path: could this id be a document URL at all? */
export const looksLikeDocumentUrl = (clientId: string): boolean => clientId.startsWith('https://');

export type UrlProblem = 'malformed' | 'host-not-allowed';

/** The URL, or why the id cannot name a document. */
export function documentUrlOf(clientId: string, allowedHosts: ReadonlySet<string>): URL | UrlProblem {
  if (clientId.length > maxClientIdUrlLength || !URL.canParse(clientId)) return 'malformed';
  const url = new URL(clientId);
  // §3: "MUST contain a path component", "MUST NOT contain single-dot or double-dot path
  // segments", "MUST NOT contain a fragment", "MUST NOT contain a username or password". The
  // parser removes dot segments: the raw text is checked, encoded dots included.
  const rawPath = clientId.slice(`https://${clientId.slice(8).split('/')[0]}`.length).split(/[?#]/)[0]!;
  const dotSegment = rawPath.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
  if (url.protocol !== 'https:' || url.hash !== '' || clientId.includes('#') || url.username !== '' || url.password !== ''
    || rawPath === '' || rawPath === '/' || dotSegment) {
    return 'malformed';
  }
  if (allowedHosts.size > 0 && !allowedHosts.has(url.host) && !allowedHosts.has(url.hostname)) return 'host-not-allowed';
  return url;
}
