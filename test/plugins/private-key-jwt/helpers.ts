/**
 * Test fixtures for the private-key-jwt plugin: keys and certificates generated on the fly (no key
 * material in the repository), a plain deps object, a Map-backed fake store and signing helpers.
 */
import { createMemoryClientRecords } from '../../../src/store/memory-client-records.js';
import { createMemoryLogoutDeliveries } from '../../../src/store/memory-logout-deliveries.js';
import { createMemoryUserRecords } from '../../../src/store/memory-user-records.js';
import { createMemorySecondFactors } from '../../../src/store/memory-second-factors.js';
import { KeyObject, createHmac, randomUUID, webcrypto } from 'node:crypto';
import { SignJWT, base64url, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { createSelfSignedCertificate } from '../../../src/cli/create-client-key.js';
import type {
  ApiResource,
  Client,
  EndpointUrls,
  PluginDependencies,
  Secret,
  SecretHolder,
  SecretValidationContext,
} from 'svc/sdk';
import { resolveConfig } from '../../../src/config/resolve.js';
import { timeOrderedKey } from '../../../src/sdk/store-keys.js';
import type { ResolvedConfig } from '../../../src/config/schema.js';
import { DuplicateKeyError, type PersistedGrant, type Store } from '../../../src/store/store.js';
import { readOptions, type PrivateKeyJwtOptions } from '../../../plugins/private-key-jwt/options.js';

export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** The fixed "now" of every test: 2027-01-15T12:00:00Z. */
export const NOW = Date.UTC(2027, 0, 15, 12, 0, 0);
export const NOW_S = NOW / 1000;
export const DAY = 86_400_000;
export const ISSUER = 'https://auth.example.com';
export const urls: EndpointUrls = {
  issuer: ISSUER,
  token: `${ISSUER}/connect/token`,
  introspection: `${ISSUER}/connect/introspect`,
  revocation: `${ISSUER}/connect/revocation`,
  deviceAuthorization: `${ISSUER}/connect/deviceauthorization`,
  jwks: `${ISSUER}/.well-known/openid-configuration/jwks`,
  byEndpoint: {
    token: `${ISSUER}/connect/token`,
    introspection: `${ISSUER}/connect/introspect`,
    revocation: `${ISSUER}/connect/revocation`,
    device_authorization: `${ISSUER}/connect/deviceauthorization`,
  },
};

// ---- keys and secrets ----

export type KeyKind = 'RSA' | 'RSA-PSS' | 'P-256' | 'P-384' | 'Ed25519' | 'RSA-1024';

export interface TestKey {
  readonly pair: webcrypto.CryptoKeyPair;
  /** For signing with any fitting alg (a CryptoKey is bound to one). */
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

const generation: Record<KeyKind, webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams | webcrypto.Algorithm> = {
  RSA: { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
  'RSA-1024': { name: 'RSASSA-PKCS1-v1_5', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
  'RSA-PSS': { name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
  'P-256': { name: 'ECDSA', namedCurve: 'P-256' },
  'P-384': { name: 'ECDSA', namedCurve: 'P-384' },
  Ed25519: { name: 'Ed25519' },
};

export async function makeKey(kind: KeyKind): Promise<TestKey> {
  const pair = (await webcrypto.subtle.generateKey(generation[kind], true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  return { pair, privateKey: KeyObject.from(pair.privateKey), publicKey: KeyObject.from(pair.publicKey) };
}

export function secret(type: string, value: string, description?: string): Secret {
  return { type, value, description, expiresAt: undefined };
}

export interface CertificateOptions {
  notBefore?: number;
  notAfter?: number;
  description?: string;
}

/** A self-signed certificate for the key, by default valid from a day before NOW to a year after. */
export async function certificateOf(key: TestKey, options: CertificateOptions = {}): Promise<Uint8Array> {
  return createSelfSignedCertificate({
    keys: key.pair,
    commonName: 'test-client',
    notBefore: new Date(options.notBefore ?? NOW - DAY),
    notAfter: new Date(options.notAfter ?? NOW + 365 * DAY),
  });
}

export async function certificateSecret(key: TestKey, options: CertificateOptions = {}): Promise<Secret> {
  const der = await certificateOf(key, options);
  return secret('X509CertificateBase64', Buffer.from(der).toString('base64'), options.description);
}

/** The key's public JWK (minimal members) plus `extra`, as JSON text. */
export function publicJwk(key: TestKey, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...key.publicKey.export({ format: 'jwk' }), ...extra };
}

export function jwkSecret(key: TestKey, extra: Record<string, unknown> = {}, description?: string): Secret {
  return secret('JsonWebKey', JSON.stringify(publicJwk(key, extra)), description);
}

// ---- config and deps ----

/**
 * The resolved config every helper below starts from, made by the service's own resolver, so a
 * new config field gets its default here without this file knowing it.
 */
const base: ResolvedConfig = resolveConfig(
  {
    issuer: ISSUER,
    port: 5000,
    store: 'memory',
    logLevel: 'silent',
    apiScopes: [{ name: 'api' }],
    clients: [{ clientId: 'template', allowedGrantTypes: ['client_credentials'], allowedScopes: ['api'] }],
  },
  '/srv/svc',
);

export function makeClient(clientId: string, clientSecrets: readonly Secret[], properties: Record<string, string> = {}): Client {
  return { ...base.clients[0]!, clientId, clientSecrets, properties };
}

export function makeConfig(clients: readonly Client[], apiResources: readonly ApiResource[] = []): ResolvedConfig {
  return { ...base, clients, apiResources };
}

const unused = (name: string) => () => Promise.reject(new Error(`FakeStore.${name} is not used by this plugin`));

/** `add` as the contract says: DuplicateKeyError for a live duplicate key, an expired one is replaced. */
export class FakeStore implements Store {
  readonly grants = new Map<string, PersistedGrant>();
  /** Set to make `add` fail as a broken store would. */
  failWith: Error | undefined;
  constructor(private readonly now: () => number = () => NOW) {}

  async add(grant: PersistedGrant): Promise<void> {
    if (this.failWith) throw this.failWith;
    const existing = this.grants.get(grant.key);
    if (existing !== undefined && existing.expiresAt > this.now()) throw new DuplicateKeyError();
    this.grants.set(grant.key, { ...grant });
  }
  migrate = unused('migrate');
  get = unused('get');
  consume = unused('consume');
  commit = unused('commit');
  update = unused('update');
  remove = unused('remove');
  removeAll = unused('removeAll');
  listGrants = unused('listGrants');
  removeStored = unused('removeStored');
  findAll = unused('findAll');
  removeExpired = unused('removeExpired');
  countExpired = unused('countExpired');
  listSigningKeys = unused('listSigningKeys');
  addSigningKey = unused('addSigningKey');
  updateSigningKey = unused('updateSigningKey');
  removeSigningKey = unused('removeSigningKey');
  ping = unused('ping');
  close = unused('close');
  readonly clientRecords = createMemoryClientRecords();
  readonly users = createMemoryUserRecords();
  readonly factors = createMemorySecondFactors();
  readonly logoutDeliveries = createMemoryLogoutDeliveries();
}

const noop = () => {};
export const silentLogger: PluginDependencies['logger'] = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
};

export interface DepsOptions {
  clients?: readonly Client[];
  apiResources?: readonly ApiResource[];
  pluginOptions?: Record<string, unknown>;
  store?: FakeStore;
  now?: () => number;
}

export function makeDeps(options: DepsOptions = {}): PluginDependencies<PrivateKeyJwtOptions> & { store: FakeStore } {
  const now = options.now ?? (() => NOW);
  return {
    config: makeConfig(options.clients ?? [], options.apiResources ?? []),
    urls,
    options: readOptions(options.pluginOptions ?? {}),
    pluginOptions: options.pluginOptions ?? {},
    logger: silentLogger,
    clock: { now },
    store: options.store ?? new FakeStore(now),
    tokenValidator: { validateAccessToken: () => Promise.reject(new Error('not used')) },
    resourceOwnerValidator: {
      validate: () => Promise.reject(new Error('not used')),
      findBySubject: () => Promise.reject(new Error('not used')),
    },
  };
}

/** What the host passes: the holder's secrets of the validator's types. */
export function contextFor(holder: Client | ApiResource, credential: string, endpoint = 'token'): SecretValidationContext {
  const ours = (s: Secret) => s.type === 'X509CertificateBase64' || s.type === 'JsonWebKey';
  const [h, secrets]: [SecretHolder, readonly Secret[]] =
    'clientId' in holder
      ? [{ kind: 'client', client: holder }, holder.clientSecrets.filter(ours)]
      : [{ kind: 'apiResource', apiResource: holder }, holder.secrets.filter(ours)];
  const id = 'clientId' in holder ? holder.clientId : holder.name;
  return { parsed: { id, credential, type: JWT_BEARER }, secrets, holder: h, endpoint };
}

// ---- assertions ----

/** Good claims for `clientId` at NOW: 5 minutes of lifetime, a fresh jti. Pass `undefined` to drop one. */
export function claimsFor(clientId: string, overrides: Record<string, unknown> = {}): JWTPayload {
  return { iss: clientId, sub: clientId, aud: ISSUER, iat: NOW_S, exp: NOW_S + 300, jti: randomUUID(), ...overrides };
}

/** The key the plugin records a used `jti` under: the assertion's `exp` (default as `claimsFor`'s) in front, then holder and jti. */
export function jtiKey(holderId: string, jti: unknown, exp: number = NOW_S + 300): string {
  return timeOrderedKey(exp * 1000, `jti:${holderId}:${String(jti)}`);
}

export async function sign(
  key: TestKey,
  alg: string,
  claims: JWTPayload,
  header: Partial<JWTHeaderParameters> = {},
): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ ...header, alg }).sign(key.privateKey);
}

const encode = (value: unknown) => base64url.encode(JSON.stringify(value));

/** A token with any header and signature, e.g. `alg: none`. */
export function rawToken(header: Record<string, unknown>, claims: JWTPayload, signature = ''): string {
  return `${encode(header)}.${encode(claims)}.${signature}`;
}

/** HS256 "keyed" with public bytes: the key-confusion attack. */
export function hmacToken(keyBytes: Uint8Array | string, claims: JWTPayload): string {
  const input = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${input}.${createHmac('sha256', keyBytes).update(input).digest('base64url')}`;
}
