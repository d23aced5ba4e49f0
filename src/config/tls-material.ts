/**
 * What the service needs for TLS, read once at start-up: the https server's certificate and key
 * (`tls`), and the CAs that issue client certificates (`mtls.clientCa`). A file that cannot be
 * read, or does not hold what its field promises, stops start-up with a message naming the field.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerOptions } from 'node:https';
import { BootError } from './boot-error.js';
import type { ResolvedConfig } from './schema.js';

export interface TlsMaterial {
  /** Options for `https.createServer`; `undefined` when a proxy terminates TLS. */
  readonly serverOptions: ServerOptions | undefined;
  /** The CAs of `mtls.clientCa`, parsed. */
  readonly clientCas: readonly X509Certificate[];
}

const pemBlock = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function read(field: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new BootError('CONFIG_INVALID', `${field}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/** Every certificate of a PEM file, in order; at least one. */
function certificates(field: string, path: string): X509Certificate[] {
  const blocks = read(field, path).match(pemBlock) ?? [];
  if (blocks.length === 0) throw new BootError('CONFIG_INVALID', `${field}: ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return blocks.map((pem, i) => {
    try {
      return new X509Certificate(pem);
    } catch (err) {
      throw new BootError('CONFIG_INVALID', `${field}: certificate #${i + 1} in ${path} does not parse (${(err as Error).message})`);
    }
  });
}

function privateKey(field: string, path: string): { pem: string; key: KeyObject } {
  const pem = read(field, path);
  try {
    return { pem, key: createPrivateKey(pem) };
  } catch (err) {
    throw new BootError('CONFIG_INVALID', `${field}: ${path} is not an unencrypted PEM private key (${(err as Error).message})`);
  }
}

/** The service can receive client certificates: its own handshake asks for them, or a trusted proxy forwards them. */
export function receivesClientCertificates(config: Pick<ResolvedConfig, 'tls' | 'mtls' | 'trustedProxies'>): boolean {
  return config.tls?.requestClientCertificate === true || (config.mtls.certificateHeader !== undefined && config.trustedProxies.length > 0);
}

export function loadTlsMaterial(config: ResolvedConfig): TlsMaterial {
  const clientCas = config.mtls.clientCa === undefined ? [] : certificates('mtls.clientCa', config.mtls.clientCa);
  clientCas.forEach((ca, i) => {
    if (!ca.ca) throw new BootError('CONFIG_INVALID', `mtls.clientCa: certificate #${i + 1} (${ca.subject.replaceAll('\n', ', ')}) is not a CA certificate (basicConstraints CA:TRUE)`);
  });
  const tls = config.tls;
  if (tls === undefined) return { serverOptions: undefined, clientCas };
  const chain = certificates('tls.certificate', tls.certificate);
  const { pem: keyPem, key } = privateKey('tls.key', tls.key);
  if (!chain[0]!.checkPrivateKey(key)) {
    throw new BootError('CONFIG_INVALID', `tls.key: ${tls.key} is not the private key of the first certificate in tls.certificate (${tls.certificate})`);
  }
  return {
    serverOptions: {
      cert: chain.map((c) => c.toString()).join(''),
      key: keyPem,
      // A missing or bad client certificate must reach client authentication, which answers
      // invalid_client (RFC 8705 §2), instead of failing the handshake.
      requestCert: tls.requestClientCertificate,
      rejectUnauthorized: false,
      // Names the acceptable CAs in the certificate request, so clients pick the right certificate.
      ...(clientCas.length > 0 ? { ca: clientCas.map((c) => c.toString()) } : {}),
    },
    clientCas,
  };
}
