/**
 * What the service needs for TLS, read once at start-up: the https server's certificate and key
 * (`tls`), the CAs that issue client certificates (`mtls.clientCa`), and the admin listener's own
 * (`admin.tls`). A file that cannot be read, or does not hold what its field promises, stops
 * start-up with a message naming the field.
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
  /** Options for the admin listener's https server (`admin.tls`); `undefined` for plain HTTP. */
  readonly adminServerOptions: ServerOptions | undefined;
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

function caCertificates(field: string, path: string): X509Certificate[] {
  const cas = certificates(field, path);
  cas.forEach((ca, i) => {
    if (!ca.ca) throw new BootError('CONFIG_INVALID', `${field}: certificate #${i + 1} (${ca.subject.replaceAll('\n', ', ')}) is not a CA certificate (basicConstraints CA:TRUE)`);
  });
  return cas;
}

/** A server's certificate chain and its key, which must belong to the chain's first certificate. */
function serverIdentity(at: string, paths: { certificate: string; key: string }): { chain: X509Certificate[]; keyPem: string } {
  const chain = certificates(`${at}.certificate`, paths.certificate);
  const { pem: keyPem, key } = privateKey(`${at}.key`, paths.key);
  if (!chain[0]!.checkPrivateKey(key)) {
    throw new BootError('CONFIG_INVALID', `${at}.key: ${paths.key} is not the private key of the first certificate in ${at}.certificate (${paths.certificate})`);
  }
  return { chain, keyPem };
}

/**
 * Options for the admin listener's https server when `admin.tls` is set (issue 39): it asks every
 * caller for a certificate issued by `admin.tls.clientCa`. The handshake never fails for a
 * missing or bad one: the admin API answers it with a problem (401) the caller can read,
 * instead of a TLS alert that curl and fetch report as a bare connection error.
 */
export function loadAdminTlsOptions(config: Pick<ResolvedConfig, 'admin'>): ServerOptions | undefined {
  const tls = config.admin?.tls;
  if (tls === undefined) return undefined;
  const { chain, keyPem } = serverIdentity('admin.tls', tls);
  const clientCas = caCertificates('admin.tls.clientCa', tls.clientCa);
  return {
    cert: chain.map((c) => c.toString()).join(''),
    key: keyPem,
    requestCert: true,
    rejectUnauthorized: false,
    // The only CAs a client certificate is verified against (not the system's), also named in the certificate request.
    ca: clientCas.map((c) => c.toString()),
  };
}

export function loadTlsMaterial(config: ResolvedConfig): TlsMaterial {
  const clientCas = config.mtls.clientCa === undefined ? [] : caCertificates('mtls.clientCa', config.mtls.clientCa);
  const adminServerOptions = loadAdminTlsOptions(config);
  const tls = config.tls;
  if (tls === undefined) return { serverOptions: undefined, clientCas, adminServerOptions };
  const { chain, keyPem } = serverIdentity('tls', tls);
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
    adminServerOptions,
  };
}
