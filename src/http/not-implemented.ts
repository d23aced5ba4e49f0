/**
 * 501 for a method the service implements for no resource (RFC 9110 §15.6.2). That is an HTTP
 * answer, not an OAuth one: the body has no `error` member, so no client reads it as an RFC 6749
 * §5.2 error and looks for a fix in its OAuth request.
 */
export const notImplementedJson = JSON.stringify({ message: 'Method not implemented.' });

/** `token SP target SP HTTP/x.y` (RFC 9112 §3), with the method token's characters of RFC 9110 §5.6.2. */
const requestLine = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [^\s]+ HTTP\/\d\.\d\r?\n/;

/**
 * Node's parser knows a fixed list of methods and refuses any other token as a parse error;
 * a request line that is well formed apart from that is an unknown method, not garbage. The
 * packet may hold earlier, valid requests (pipelining, or a body sent without framing): the line
 * judged is the one where parsing stopped (`bytesParsed`).
 */
export function isUnknownMethod(rawPacket: unknown, bytesParsed: unknown): boolean {
  if (!Buffer.isBuffer(rawPacket) || typeof bytesParsed !== 'number') return false;
  const start = rawPacket.lastIndexOf(0x0a, Math.max(0, bytesParsed - 1)) + 1;
  return requestLine.test(rawPacket.subarray(start, start + 8192).toString('latin1'));
}
