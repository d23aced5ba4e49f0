/**
 * The TLS client certificate of a request (RFC 8705), through `clientCertificateOf(ctx)`, for
 * client authentication and certificate-bound tokens. It comes from one of two places:
 * - behind a proxy in `trustedProxies`, from the header the proxy writes (`mtls.certificateHeader`,
 *   URL-encoded PEM as nginx's `$ssl_client_escaped_cert`), and only from there: the proxy's own
 *   certificate is not its clients'. From anyone else the header is the caller's own words and
 *   is ignored, as the forwarding headers are (`client-address.ts`);
 * - otherwise from the service's own handshake (`tls.requestClientCertificate`), parsed once per
 *   connection: every request of a kept-alive connection shares it.
 * A header that does not hold a certificate counts as no certificate (logged): client
 * authentication then answers `invalid_client`, never a 500.
 */
import { X509Certificate, createHash } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { Context, Next } from 'koa';
import type { ClientCertificate, Clock, Logger } from '../sdk/contracts.js';

export interface ClientCertificateOptions {
  /** Lower-case header name a trusted proxy writes, or `undefined`. */
  readonly header: string | undefined;
  /** The CAs of `mtls.clientCa`. */
  readonly clientCas: readonly X509Certificate[];
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Where the request's (lazy) reader lives in `ctx.state`. */
const stateKey = 'clientCertificate';

/** Longest header accepted: a certificate with a long chain of extensions, URL-encoded, fits well within it. */
const maxHeaderLength = 16 * 1024;

/**
 * True when one of `cas` issued `certificate`: names and key identifiers match (`checkIssued`),
 * the signature verifies with the CA's key, and the CA is within its validity at `now`. Each CA
 * in the file is a trust anchor, so one step is the whole chain (RFC 5280 §6.1, with the
 * intermediates configured as anchors).
 */
export function issuedByOneOf(certificate: X509Certificate, cas: readonly X509Certificate[], now: number): boolean {
  return cas.some(
    (ca) => certificate.checkIssued(ca) && Date.parse(ca.validFrom) <= now && now <= Date.parse(ca.validTo) && certificate.verify(ca.publicKey),
  );
}

export function describeCertificate(certificate: X509Certificate, options: Pick<ClientCertificateOptions, 'clientCas' | 'clock'>, source: ClientCertificate['source']): ClientCertificate {
  return Object.freeze({
    certificate,
    thumbprint: createHash('sha256').update(certificate.raw).digest('base64url'),
    issuedByTrustedCa: issuedByOneOf(certificate, options.clientCas, options.clock.now()),
    source,
  });
}

/** Decodes the proxy's header: URL-encoded PEM (nginx), or plain PEM. `undefined` when empty. */
export function certificateFromHeader(value: string): X509Certificate | undefined {
  if (value === '' || value === '(null)') return undefined;
  if (value.length > maxHeaderLength) throw new Error(`longer than ${maxHeaderLength} characters`);
  let pem: string;
  try {
    pem = decodeURIComponent(value);
  } catch {
    throw new Error('bad percent-encoding');
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate');
  return new X509Certificate(pem);
}

export function clientCertificates(options: ClientCertificateOptions) {
  const perConnection = new WeakMap<object, ClientCertificate | null>();

  function fromHandshake(socket: TLSSocket): ClientCertificate | undefined {
    const known = perConnection.get(socket);
    if (known !== undefined) return known ?? undefined;
    // Only a certificate the client proved it holds the key of: the handshake's CertificateVerify.
    const peer = typeof socket.getPeerX509Certificate === 'function' ? socket.getPeerX509Certificate() : undefined;
    const found = peer === undefined ? undefined : describeCertificate(peer, options, 'tls');
    perConnection.set(socket, found ?? null);
    return found;
  }

  function fromProxy(ctx: Context): ClientCertificate | undefined {
    const value = ctx.get(options.header!);
    try {
      const certificate = certificateFromHeader(value);
      return certificate === undefined ? undefined : describeCertificate(certificate, options, 'proxy');
    } catch (err) {
      options.logger.warn({ requestId: ctx.state.requestId, header: options.header, problem: (err as Error).message }, 'client certificate header from a trusted proxy is unreadable; treated as none');
      return undefined;
    }
  }

  function read(ctx: Context): ClientCertificate | undefined {
    const socket = ctx.req.socket as Partial<TLSSocket>;
    if (options.header !== undefined && ctx.state.viaTrustedProxy === true) return fromProxy(ctx);
    return socket.encrypted === true ? fromHandshake(socket as TLSSocket) : undefined;
  }

  // Lazy: only the endpoints that authenticate callers or check a token's binding read it, once.
  return async function readClientCertificates(ctx: Context, next: Next): Promise<void> {
    let known: { value: ClientCertificate | undefined } | undefined;
    ctx.state[stateKey] = (): ClientCertificate | undefined => (known ??= { value: read(ctx) }).value;
    await next();
  };
}

/** The request's client certificate, read on first call; `undefined` when mutual TLS is off or none came. */
export function clientCertificateOf(ctx: Context): ClientCertificate | undefined {
  const reader = ctx.state[stateKey] as (() => ClientCertificate | undefined) | undefined;
  return reader?.();
}
