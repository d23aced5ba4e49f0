/**
 * A certificate's SHA-256 thumbprint, written either way operators meet it: base64url
 * (`x5t#S256`, RFC 8705 §3.1) or hex as `openssl x509 -noout -fingerprint -sha256` prints it
 * (`AB:CD:...`). Both become base64url, the form the service compares (`admin.tls.clients`).
 */

/** base64url of a thumbprint written either way, or `undefined` when it is neither 32 bytes of hex nor of base64url. */
export function normalThumbprint(written: string): string | undefined {
  const hex = written.replace(/[:\s]/g, '');
  if (/^[0-9a-fA-F]{64}$/.test(hex)) return Buffer.from(hex, 'hex').toString('base64url');
  if (/^[\w-]{43}$/.test(written)) return written;
  return undefined;
}
