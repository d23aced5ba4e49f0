/**
 * The stored values of the certificate secrets, parsed once when the validators are built: a
 * value that is not what its type promises stops start-up naming the secret, and a request never
 * decodes a stored value.
 *
 * - `X509Thumbprint`: the SHA-256 thumbprint of the client's certificate DER, as base64url (43
 *   characters, the `x5t#S256` form of RFC 8705 §3.1) or hex (64 digits, colons and case as
 *   `openssl x509 -noout -fingerprint -sha256` prints them). A 40-digit SHA-1 thumbprint is refused.
 * - `X509Name`: the certificate's subject distinguished name, e.g. `CN=client, O=Example, C=DE`.
 * - `X509CertificateBase64`: the certificate itself, base64 DER (its thumbprint is what is compared).
 */
import { X509Certificate, createHash } from 'node:crypto';
import { canonicalName, type PluginConfig, type Secret } from 'svc/sdk';
import { CERTIFICATE_SECRET, NAME_SECRET, THUMBPRINT_SECRET } from './secret-types.js';

function thumbprintOf(value: string): string {
  const trimmed = value.trim();
  if (/^[A-Za-z0-9_-]{43}$/.test(trimmed)) return trimmed;
  const hex = trimmed.replace(/[\s:]/g, '');
  if (/^[0-9a-fA-F]{64}$/.test(hex)) return Buffer.from(hex, 'hex').toString('base64url');
  if (/^[0-9a-fA-F]{40}$/.test(hex)) {
    throw new Error('a SHA-1 thumbprint (40 hex digits); give the SHA-256 one: openssl x509 -in client.pem -noout -fingerprint -sha256');
  }
  throw new Error('expected a SHA-256 thumbprint: 43 base64url characters or 64 hex digits');
}

function nameOf(value: string): string {
  const name = canonicalName(value);
  if (name === undefined) throw new Error('expected a distinguished name such as "CN=client, O=Example, C=DE"');
  return name;
}

function certificateThumbprintOf(value: string): string {
  if (value.includes('-----BEGIN')) throw new Error('found PEM armour; give the base64 DER only (the lines between BEGIN and END, joined)');
  const base64 = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw new Error('not base64');
  const der = Buffer.from(base64, 'base64');
  try {
    new X509Certificate(der);
  } catch (error) {
    throw new Error(`not a DER X.509 certificate (${(error as Error).message})`);
  }
  return createHash('sha256').update(der).digest('base64url');
}

const parsers: Readonly<Record<string, (value: string) => string>> = {
  [THUMBPRINT_SECRET]: thumbprintOf,
  [NAME_SECRET]: nameOf,
  [CERTIFICATE_SECRET]: certificateThumbprintOf,
};

/**
 * The stored values of one secret type, by secret: a thumbprint (base64url) or a canonical name.
 * A store's client (the database, a plugin's) arrives as a frozen object that lives until the
 * store reloads: its secrets are parsed on first use and kept by object, failures included.
 */
export class StoredValues {
  readonly #bySecret = new WeakMap<Secret, string | null>();
  readonly #parse: (value: string) => string;

  private constructor(readonly type: string) {
    this.#parse = parsers[type]!;
  }

  /** Parses every secret of `type` of every client and API resource; throws naming the first bad one. */
  static fromConfig(type: string, config: Pick<PluginConfig, 'clients' | 'apiResources'>): StoredValues {
    const values = new StoredValues(type);
    const holders = [
      ...config.clients.map((c, i) => ({ path: `clients[${i}].clientSecrets`, secrets: c.clientSecrets })),
      ...config.apiResources.map((r, i) => ({ path: `apiResources[${i}].secrets`, secrets: r.secrets })),
    ];
    for (const { path, secrets } of holders) {
      secrets.forEach((secret, i) => {
        if (secret.type !== type) return;
        try {
          values.#bySecret.set(secret, values.#parse(secret.value));
        } catch (error) {
          throw new Error(`${path}[${i}].value (${type}): ${(error as Error).message}`, { cause: error });
        }
      });
    }
    return values;
  }

  /** The parsed value; a secret not seen at start-up is parsed now, and one that does not parse is `undefined`. */
  of(secret: Secret): string | undefined {
    const known = this.#bySecret.get(secret);
    if (known !== undefined) return known ?? undefined;
    let parsed: string | null;
    try {
      parsed = this.#parse(secret.value);
    } catch {
      parsed = null;
    }
    // A secret that is not frozen could change under the cache: it is parsed on every use.
    if (Object.isFrozen(secret)) this.#bySecret.set(secret, parsed);
    return parsed ?? undefined;
  }
}
