/**
 * Structural validation of a user config of unknown shape. Returns one message per problem,
 * each naming the field path, what is wrong and what is allowed:
 * `clients[2].allowedGrantTypes[0]: expected a non-empty string, got 42`.
 * Checks that need the loaded plugins (grant types, secret types, authentication methods) live in
 * `src/plugin-host/check-config.ts`.
 */
import { isPhcScrypt } from './password-format.js';
import { didYouMean } from './closest-name.js';
import { defaults } from './defaults.js';
import { parseAddressRange } from '../net/address-ranges.js';
import { Problems } from './problems.js';
import { signingAlgorithms } from './schema.js';
import { checkSignInClient, signInClientFields } from './validate-sign-in.js';
// ISSUE 34 (upstream sign-in).
import { checkIdentityProviders, upstreamTopLevelFields } from './identity-providers.js';
import { checkDpop, checkDpopClient, dpopClientFields } from './validate-dpop.js';
import { checkIdTokenAlgorithms, checkIdTokenSigningClient, idTokenSigningClientFields, offeredIdTokenAlgorithms } from './validate-id-token-signing.js';

const topLevelFields = [
  'issuer', 'port', 'host', 'pluginDirs', 'packagePlugins', 'plugins', 'store', 'cleanupInterval', 'clients', 'apiScopes',
  'apiResources', 'identityResources', 'users', 'signing', 'deviceFlow', 'limits', 'logLevel', 'workers', 'metrics', 'tracing',
  'authThrottle', 'passwordThrottle', 'introspectionLimit', 'interactionLimit', 'connections', 'trustedProxies', 'forwardedHeader',
  'counters', 'counterKeyPrefix', 'tls', 'mtls', 'dpop', 'clientStores', 'registration',
  ...upstreamTopLevelFields, // ISSUE 34
] as const;
const clientFields = [
  'clientId', 'clientName', 'clientSecrets', 'requireClientSecret', 'allowedGrantTypes', 'allowedScopes',
  'accessTokenLifetime', 'accessTokenType', 'allowOfflineAccess', 'absoluteRefreshTokenLifetime',
  'slidingRefreshTokenLifetime', 'refreshTokenReuseInterval', 'deviceCodeLifetime', 'pollingInterval', 'properties', 'allowedCorsOrigins',
  'tokenEndpointAuthMethods', 'allowedSubjectTokenAudiences', 'requireCertificateBoundTokens', ...signInClientFields, ...dpopClientFields,
  ...idTokenSigningClientFields,
] as const;
const secretFields = ['value', 'type', 'description', 'expiration'] as const;
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ) */
const scopeToken = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
/** ISO 8601: a plain date (read as UTC), or a date-time with an explicit zone. */
const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;

/** True for a real calendar date-time: `Date.parse` would roll February 30th into March. */
function isIsoDateTime(value: string): boolean {
  const m = isoDateTime.exec(value);
  if (!m || Number.isNaN(Date.parse(value))) return false;
  const [year, month, day, hour = '0', minute = '0', second = '0'] = m.slice(1).map((v) => v ?? undefined) as string[];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return (
    date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day) &&
    Number(hour) < 24 && Number(minute) < 60 && Number(second) < 60
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkUnknownFields(p: Problems, path: string, obj: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key)) p.add(path ? `${path}.${key}` : key, `unknown field${didYouMean(key, known)} (known: ${known.join(', ')})`);
  }
}

function str(p: Problems, path: string, value: unknown, opts: { required?: boolean; max?: number } = {}): value is string {
  if (value === undefined) {
    if (opts.required) p.add(path, 'required, expected a non-empty string');
    return false;
  }
  if (typeof value !== 'string' || value.length === 0) {
    p.add(path, `expected a non-empty string, got ${describe(value)}`);
    return false;
  }
  if (opts.max !== undefined && value.length > opts.max) {
    p.add(path, `longer than ${opts.max} characters`);
    return false;
  }
  return true;
}

function int(p: Problems, path: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    p.add(path, `expected a whole number from ${min} to ${max}, got ${describe(value)}`);
  }
}

function bool(p: Problems, path: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'boolean') p.add(path, `expected true or false, got ${describe(value)}`);
}

function oneOf(p: Problems, path: string, value: unknown, allowed: readonly string[]): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || !allowed.includes(value)) {
    p.add(path, `unknown value ${describe(value)} (allowed: ${allowed.join(', ')})`);
  }
}

function arrayOf(p: Problems, path: string, value: unknown, required: boolean): unknown[] {
  if (value === undefined) {
    if (required) p.add(path, 'required, expected an array');
    return [];
  }
  if (!Array.isArray(value)) {
    p.add(path, `expected an array, got ${describe(value)}`);
    return [];
  }
  return value;
}

function stringList(p: Problems, path: string, value: unknown, required: boolean): string[] {
  const out: string[] = [];
  arrayOf(p, path, value, required).forEach((item, i) => {
    if (str(p, `${path}[${i}]`, item, { required: true })) out.push(item);
  });
  return out;
}

function checkSecrets(p: Problems, path: string, value: unknown): number {
  const secrets = arrayOf(p, path, value, false);
  secrets.forEach((secret, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(secret)) {
      p.add(at, `expected a secret definition { value, type?, description?, expiration? }, got ${describe(secret)}`);
      return;
    }
    checkUnknownFields(p, at, secret, secretFields);
    str(p, `${at}.value`, secret.value, { required: true });
    str(p, `${at}.type`, secret.type);
    if (secret.description !== undefined && typeof secret.description !== 'string') {
      p.add(`${at}.description`, `expected a string, got ${describe(secret.description)}`);
    }
    if (secret.expiration !== undefined) {
      const e = secret.expiration;
      if (typeof e !== 'string' || !isIsoDateTime(e)) {
        p.add(`${at}.expiration`, `expected an ISO 8601 date-time such as "2027-01-31T00:00:00Z", got ${describe(e)}`);
      }
    }
  });
  return secrets.length;
}

function checkUnique(p: Problems, path: string, field: string, items: unknown[]): Set<string> {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (!isObject(item) || typeof item[field] !== 'string') return;
    const name = item[field];
    if (seen.has(name)) p.add(`${path}[${i}].${field}`, `duplicate ${field} "${name}"`);
    seen.add(name);
  });
  return seen;
}

function checkUrl(p: Problems, path: string, value: unknown): void {
  if (!str(p, path, value)) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    p.add(path, `expected an absolute http(s) URL, got ${describe(value)}`);
    return;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') p.add(path, `expected an http(s) URL, got ${describe(value)}`);
  // RFC 8414 §2: the issuer has no query or fragment.
  if (url.search || url.hash) p.add(path, `the ${path === 'issuer' ? 'issuer' : 'URL'} must not contain a query or fragment`);
}

export function validateUserConfig(raw: unknown): string[] {
  const p = new Problems();
  if (!isObject(raw)) {
    p.add('(config)', `expected an object (export default { ... }), got ${describe(raw)}`);
    return p.list;
  }
  checkServer(p, raw);
  const model = checkScopesAndResources(p, raw);
  const clientIndex = checkClients(p, raw, model);
  checkUsers(p, raw, clientIndex);
  checkSigning(p, raw);
  checkDeviceFlow(p, raw);
  checkOperations(p, raw);
  checkTls(p, raw);
  checkIdentityProviders(p, raw); // ISSUE 34 (upstream sign-in)
  return p.list;
}

type Raw = Record<string, unknown>;

/** What the model defines, for the clients' references to it. */
interface ModelNames {
  readonly scopeNames: ReadonlySet<string>;
  readonly identityNames: ReadonlySet<string>;
  readonly resourceNames: ReadonlySet<string>;
}

/** The server itself: address, store, plugins, logging. */
function checkServer(p: Problems, raw: Raw): void {
  checkUnknownFields(p, '', raw, topLevelFields);

  if (raw.issuer !== undefined) checkUrl(p, 'issuer', raw.issuer);
  int(p, 'port', raw.port, 0, 65535);
  str(p, 'host', raw.host);
  stringList(p, 'pluginDirs', raw.pluginDirs, false);
  stringList(p, 'packagePlugins', raw.packagePlugins, false).forEach((name, i) => {
    const known: readonly string[] = defaults.packagePlugins;
    if (!known.includes(name)) p.add(`packagePlugins[${i}]`, `unknown package plugin "${name}"${didYouMean(name, known)} (known: ${known.join(', ')})`);
    else if ((raw.packagePlugins as string[]).indexOf(name) !== i) p.add(`packagePlugins[${i}]`, `"${name}" is listed twice`);
  });
  if (raw.plugins !== undefined) {
    if (!isObject(raw.plugins)) p.add('plugins', `expected an object of plugin name to options, got ${describe(raw.plugins)}`);
    else for (const [name, opts] of Object.entries(raw.plugins)) {
      if (!isObject(opts)) p.add(`plugins["${name}"]`, `expected an options object, got ${describe(opts)}`);
    }
  }
  if (str(p, 'store', raw.store) && !/^(memory$|sqlite:.+|postgres(ql)?:\/\/.+)/.test(raw.store)) {
    p.add('store', `unknown store ${describe(raw.store)} (allowed: "memory", "sqlite:<path>", "postgres://...")`);
  }
  int(p, 'cleanupInterval', raw.cleanupInterval, 1);
  oneOf(p, 'logLevel', raw.logLevel, logLevels);
  if (raw.workers !== undefined && raw.workers !== 'auto') int(p, 'workers', raw.workers, 1, 256);

}

/** API scopes, identity resources and API resources; returns their names. */
function checkScopesAndResources(p: Problems, raw: Raw): ModelNames {
  const apiScopes = arrayOf(p, 'apiScopes', raw.apiScopes, false);
  apiScopes.forEach((s, i) => {
    if (!isObject(s)) return p.add(`apiScopes[${i}]`, `expected { name, description? }, got ${describe(s)}`);
    checkUnknownFields(p, `apiScopes[${i}]`, s, ['name', 'description']);
    if (str(p, `apiScopes[${i}].name`, s.name, { required: true }) && !scopeToken.test(s.name)) {
      p.add(`apiScopes[${i}].name`, 'a scope name may not contain spaces, quotes or backslashes (RFC 6749 §3.3)');
    }
  });
  const scopeNames = checkUnique(p, 'apiScopes', 'name', apiScopes);

  const identityResources = arrayOf(p, 'identityResources', raw.identityResources, false);
  identityResources.forEach((r, i) => {
    const at = `identityResources[${i}]`;
    if (!isObject(r)) return p.add(at, `expected { name, claims, description? }, got ${describe(r)}`);
    checkUnknownFields(p, at, r, ['name', 'description', 'claims']);
    str(p, `${at}.name`, r.name, { required: true });
    stringList(p, `${at}.claims`, r.claims, true);
    if (typeof r.name === 'string' && scopeNames.has(r.name)) p.add(`${at}.name`, `"${r.name}" is also an API scope`);
  });
  const identityNames = checkUnique(p, 'identityResources', 'name', identityResources);
  if (identityNames.size > 0 && !identityNames.has('openid')) {
    p.add('identityResources', 'identity resources need the "openid" resource (OpenID Connect Core §3.1.2.1)');
  }

  const apiResources = arrayOf(p, 'apiResources', raw.apiResources, false);
  apiResources.forEach((r, i) => {
    const at = `apiResources[${i}]`;
    if (!isObject(r)) return p.add(at, `expected { name, scopes, secrets? }, got ${describe(r)}`);
    checkUnknownFields(p, at, r, ['name', 'scopes', 'secrets']);
    str(p, `${at}.name`, r.name, { required: true, max: 100 });
    stringList(p, `${at}.scopes`, r.scopes, true).forEach((scope, j) => {
      if (!scopeNames.has(scope)) p.add(`${at}.scopes[${j}]`, `unknown scope "${scope}"${didYouMean(scope, [...scopeNames])} (define it in apiScopes)`);
    });
    checkSecrets(p, `${at}.secrets`, r.secrets);
  });
  const resourceNames = checkUnique(p, 'apiResources', 'name', apiResources);

  return { scopeNames, identityNames, resourceNames };
}

/** Every client; returns client id to its index, for the users' check. */
function checkClients(p: Problems, raw: Raw, { scopeNames, identityNames, resourceNames }: ModelNames): ReadonlyMap<string, number> {
  const knownScopes = [...scopeNames, ...identityNames];
  const clients = arrayOf(p, 'clients', raw.clients, false);
  const idTokenAlgorithms = offeredIdTokenAlgorithms(raw.signing, defaults.signing.idTokenAlgorithms);
  clients.forEach((c, i) => {
    const at = `clients[${i}]`;
    if (!isObject(c)) return p.add(at, `expected a client object, got ${describe(c)}`);
    checkUnknownFields(p, at, c, clientFields);
    str(p, `${at}.clientId`, c.clientId, { required: true, max: 100 });
    if (c.clientName !== undefined && typeof c.clientName !== 'string') p.add(`${at}.clientName`, 'expected a string');
    const secretCount = checkSecrets(p, `${at}.clientSecrets`, c.clientSecrets);
    bool(p, `${at}.requireClientSecret`, c.requireClientSecret);
    if (c.requireClientSecret !== false && secretCount === 0) {
      p.add(`${at}.clientSecrets`, 'a confidential client needs at least one secret (or set requireClientSecret: false for a public client)');
    }
    stringList(p, `${at}.allowedGrantTypes`, c.allowedGrantTypes, true).forEach((grant, j) => {
      // RFC 6749 §4.4: client_credentials is for confidential clients; a public one would give tokens to anyone who knows its id.
      if (grant === 'client_credentials' && c.requireClientSecret === false) {
        p.add(`${at}.allowedGrantTypes[${j}]`, 'client_credentials needs a confidential client (RFC 6749 §4.4): a public client (requireClientSecret: false) would give tokens to anyone who knows its id; give it a secret or remove the grant');
      }
    });
    stringList(p, `${at}.allowedScopes`, c.allowedScopes, true).forEach((scope, j) => {
      if (scope === 'offline_access') {
        p.add(`${at}.allowedScopes[${j}]`, 'offline_access is not listed; set allowOfflineAccess: true instead');
      } else if (!knownScopes.includes(scope)) {
        p.add(`${at}.allowedScopes[${j}]`, `unknown scope "${scope}"${didYouMean(scope, knownScopes)} (known: ${knownScopes.join(', ') || 'none; define apiScopes'})`);
      }
    });
    for (const f of ['accessTokenLifetime', 'absoluteRefreshTokenLifetime', 'deviceCodeLifetime', 'pollingInterval'] as const) {
      int(p, `${at}.${f}`, c[f], 1);
    }
    int(p, `${at}.slidingRefreshTokenLifetime`, c.slidingRefreshTokenLifetime, 0);
    // Short by design: within it a reused refresh token is not treated as stolen.
    int(p, `${at}.refreshTokenReuseInterval`, c.refreshTokenReuseInterval, 0, 300);
    oneOf(p, `${at}.accessTokenType`, c.accessTokenType, ['jwt', 'reference']);
    bool(p, `${at}.allowOfflineAccess`, c.allowOfflineAccess);
    bool(p, `${at}.requireCertificateBoundTokens`, c.requireCertificateBoundTokens);
    stringList(p, `${at}.allowedCorsOrigins`, c.allowedCorsOrigins, false).forEach((origin, j) => {
      // An origin is scheme://host[:port] with nothing after it (RFC 6454).
      if (!/^https?:\/\/[^/?#\s]+$/.test(origin)) p.add(`${at}.allowedCorsOrigins[${j}]`, `expected an origin such as "https://app.example.com", got ${describe(origin)}`);
    });
    stringList(p, `${at}.allowedSubjectTokenAudiences`, c.allowedSubjectTokenAudiences, false).forEach((name, j) => {
      if (!resourceNames.has(name)) {
        p.add(`${at}.allowedSubjectTokenAudiences[${j}]`, `unknown API resource "${name}" (known: ${[...resourceNames].join(', ') || 'none; define apiResources'})`);
      }
    });
    checkPinnedAuthMethods(p, at, c);
    checkSignInClient(p, at, c, typeof raw.issuer === 'string' && raw.issuer.startsWith('https:'), { describe, bool, int, stringList });
    checkDpopClient(p, at, c, { describe, bool, int, stringList, isObject });
    checkIdTokenSigningClient(p, at, c, idTokenAlgorithms, { stringList });
    if (c.properties !== undefined) {
      if (!isObject(c.properties) || Object.values(c.properties).some((v) => typeof v !== 'string')) {
        p.add(`${at}.properties`, 'expected an object of string values');
      }
    }
  });
  const clientIndex = new Map<string, number>();
  clients.forEach((c, i) => {
    if (isObject(c) && typeof c.clientId === 'string' && !clientIndex.has(c.clientId)) clientIndex.set(c.clientId, i);
  });
  checkUnique(p, 'clients', 'clientId', clients);

  return clientIndex;
}

/** `tokenEndpointAuthMethods`, as far as it can be checked without the plugins. */
function checkPinnedAuthMethods(p: Problems, at: string, c: Raw): void {
  if (c.tokenEndpointAuthMethods === undefined) return;
  const path = `${at}.tokenEndpointAuthMethods`;
  const methods = c.tokenEndpointAuthMethods;
  stringList(p, path, methods, false);
  if (Array.isArray(methods) && methods.length === 0) {
    p.add(path, 'expected at least one method (leave the field out to allow every method the client has secrets for)');
  }
  // Which names exist, and whether the client holds a secret for each, is checked once the plugins are loaded.
  const list: unknown[] = Array.isArray(methods) ? methods : [];
  list.forEach((m, j) => {
    if (typeof m !== 'string' || m === '') return;
    if (list.indexOf(m) !== j) p.add(`${path}[${j}]`, `"${m}" is listed twice`);
    else if (m === 'none' && c.requireClientSecret !== false) {
      p.add(`${path}[${j}]`, '"none" is for public clients; set requireClientSecret: false or remove it');
    }
  });
}

function checkUsers(p: Problems, raw: Raw, clientIndex: ReadonlyMap<string, number>): void {
  const users = arrayOf(p, 'users', raw.users, false);
  users.forEach((u, i) => {
    const at = `users[${i}]`;
    if (!isObject(u)) return p.add(at, `expected { subjectId, username, password, claims? }, got ${describe(u)}`);
    checkUnknownFields(p, at, u, ['subjectId', 'username', 'password', 'claims']);
    str(p, `${at}.subjectId`, u.subjectId, { required: true, max: 200 });
    str(p, `${at}.username`, u.username, { required: true, max: 100 });
    if (str(p, `${at}.password`, u.password, { required: true }) && !isPhcScrypt(u.password)) {
      p.add(`${at}.password`, 'expected a PHC scrypt hash "$scrypt$ln=..,r=..,p=..$<salt>$<hash>" (make one with `svc hash-password`), never a plain password');
    }
    if (u.claims !== undefined && !isObject(u.claims)) p.add(`${at}.claims`, 'expected an object of claim name to value');
    // A client_credentials token's sub is the client id (RFC 9068 §2.2): a user with the same
    // subject id would get tokens no API could tell from the client's own.
    const clash = typeof u.subjectId === 'string' ? clientIndex.get(u.subjectId) : undefined;
    if (clash !== undefined) {
      p.add(`${at}.subjectId`, `"${u.subjectId as string}" is also the clientId of clients[${clash}]; this user's tokens could not be told from that client's own (both have sub "${u.subjectId as string}"). Give the user another subjectId`);
    }
  });
  checkUnique(p, 'users', 'subjectId', users);
  checkUnique(p, 'users', 'username', users);

}

function checkSigning(p: Problems, raw: Raw): void {
  if (raw.signing !== undefined) {
    if (!isObject(raw.signing)) p.add('signing', `expected an object, got ${describe(raw.signing)}`);
    else {
      const s = raw.signing;
      checkUnknownFields(p, 'signing', s, ['accessTokenAlgorithm', 'idTokenAlgorithms', 'keys', 'keyEncryptionKeys', 'rotationInterval', 'propagationTime', 'refreshInterval', 'threads']);
      oneOf(p, 'signing.accessTokenAlgorithm', s.accessTokenAlgorithm, signingAlgorithms);
      checkIdTokenAlgorithms(p, s.idTokenAlgorithms, signingAlgorithms, { stringList });
      int(p, 'signing.rotationInterval', s.rotationInterval, 60);
      int(p, 'signing.propagationTime', s.propagationTime, 0);
      int(p, 'signing.refreshInterval', s.refreshInterval, 1);
      const threads = s.threads;
      if (threads !== undefined && threads !== 'auto' && !(typeof threads === 'number' && Number.isInteger(threads) && threads >= 0 && threads <= 256)) {
        p.add('signing.threads', `expected "auto" or a whole number from 0 to 256, got ${describe(threads)}`);
      }
      arrayOf(p, 'signing.keys', s.keys, false).forEach((k, i) => {
        const ok = typeof k === 'string' ? k.length > 0
          : isObject(k) && ((typeof k.path === 'string' && k.path.length > 0) || (typeof k.env === 'string' && k.env.length > 0));
        if (!ok) p.add(`signing.keys[${i}]`, `expected a path string, { path } or { env }, got ${describe(k)}`);
      });
      // Objects only: a bare string here would too easily be the key itself pasted into the config.
      arrayOf(p, 'signing.keyEncryptionKeys', s.keyEncryptionKeys, false).forEach((k, i) => {
        const ok = isObject(k) && Object.keys(k).length === 1
          && ((typeof k.path === 'string' && k.path.length > 0) || (typeof k.env === 'string' && k.env.length > 0));
        if (!ok) p.add(`signing.keyEncryptionKeys[${i}]`, 'expected { env: "NAME" } or { path: "file" } (the key itself never goes in the config)');
      });
    }
  }
}

function checkDeviceFlow(p: Problems, raw: Raw): void {
  if (raw.deviceFlow !== undefined) {
    if (!isObject(raw.deviceFlow)) p.add('deviceFlow', `expected an object, got ${describe(raw.deviceFlow)}`);
    else {
      const d = raw.deviceFlow;
      checkUnknownFields(p, 'deviceFlow', d, [
        'userCodeFormat', 'maxFailedAttempts', 'failedAttemptsWindow', 'cookieSecret',
        'maxAuthorizationsPerAddress', 'maxAuthorizationsPerClient', 'authorizationsWindow',
      ]);
      oneOf(p, 'deviceFlow.userCodeFormat', d.userCodeFormat, ['base20', 'numeric']);
      int(p, 'deviceFlow.maxFailedAttempts', d.maxFailedAttempts, 1);
      int(p, 'deviceFlow.failedAttemptsWindow', d.failedAttemptsWindow, 1);
      for (const f of ['maxAuthorizationsPerAddress', 'maxAuthorizationsPerClient', 'authorizationsWindow'] as const) int(p, `deviceFlow.${f}`, d[f], 1);
      if (d.cookieSecret !== undefined && (typeof d.cookieSecret !== 'string' || d.cookieSecret.length < 32)) {
        p.add('deviceFlow.cookieSecret', 'expected a string of at least 32 characters');
      }
    }
  }
}

/** Metrics, throttles and limits, connections. */
function checkOperations(p: Problems, raw: Raw): void {
  if (raw.metrics !== undefined) {
    if (!isObject(raw.metrics)) p.add('metrics', `expected an object, got ${describe(raw.metrics)}`);
    else {
      checkUnknownFields(p, 'metrics', raw.metrics, ['enabled', 'bearerToken']);
      bool(p, 'metrics.enabled', raw.metrics.enabled);
      if (raw.metrics.bearerToken !== undefined && (typeof raw.metrics.bearerToken !== 'string' || raw.metrics.bearerToken.length < 16)) {
        p.add('metrics.bearerToken', 'expected a string of at least 16 characters');
      }
    }
  }
  if (raw.tracing !== undefined) {
    if (!isObject(raw.tracing)) p.add('tracing', `expected an object { enabled?, endpoint?, serviceName? }, got ${describe(raw.tracing)}`);
    else {
      checkUnknownFields(p, 'tracing', raw.tracing, ['enabled', 'endpoint', 'serviceName']);
      bool(p, 'tracing.enabled', raw.tracing.enabled);
      if (raw.tracing.endpoint !== undefined) checkUrl(p, 'tracing.endpoint', raw.tracing.endpoint);
      str(p, 'tracing.serviceName', raw.tracing.serviceName, { max: 200 });
    }
  }
  if (raw.authThrottle !== undefined) {
    if (!isObject(raw.authThrottle)) p.add('authThrottle', `expected an object, got ${describe(raw.authThrottle)}`);
    else {
      checkUnknownFields(p, 'authThrottle', raw.authThrottle, ['pairThreshold', 'addressThreshold', 'maxDelay', 'window']);
      for (const f of ['pairThreshold', 'addressThreshold', 'maxDelay', 'window'] as const) int(p, `authThrottle.${f}`, raw.authThrottle[f], 1);
    }
  }
  checkNumbers(p, raw, 'passwordThrottle', ['pairThreshold', 'userThreshold', 'addressThreshold', 'maxDelay', 'window'], 1);
  checkNumbers(p, raw, 'introspectionLimit', ['maxInactive', 'window'], 1);
  checkNumbers(p, raw, 'interactionLimit', ['maxPerAddress', 'maxTotal', 'window'], 1);
  checkConnections(p, raw.connections);
  arrayOf(p, 'trustedProxies', raw.trustedProxies, false).forEach((entry, i) => {
    if (str(p, `trustedProxies[${i}]`, entry, { required: true }) && !parseAddressRange(entry)) {
      p.add(`trustedProxies[${i}]`, `expected an IPv4 or IPv6 address or CIDR range such as "10.0.0.0/8" or "fd00::/8", got ${describe(entry)}`);
    }
  });
  oneOf(p, 'forwardedHeader', raw.forwardedHeader, ['x-forwarded-for', 'forwarded']);
  checkCounters(p, raw);
  checkDpop(p, raw.dpop, { describe, bool, int, stringList, isObject });
  if (raw.clientStores !== undefined) {
    if (!isObject(raw.clientStores)) p.add('clientStores', `expected an object, got ${describe(raw.clientStores)}`);
    else {
      checkUnknownFields(p, 'clientStores', raw.clientStores, ['database', 'refreshInterval']);
      bool(p, 'clientStores.database', raw.clientStores.database);
      int(p, 'clientStores.refreshInterval', raw.clientStores.refreshInterval, 1, 3600);
    }
  }
  if (raw.registration !== undefined) {
    if (!isObject(raw.registration)) p.add('registration', `expected an object, got ${describe(raw.registration)}`);
    else {
      checkUnknownFields(p, 'registration', raw.registration, ['enabled', 'allowedGrantTypes', 'allowedScopes', 'allowedAuthMethods', 'redirectUris', 'registrationAccessTokenLifetime']);
      bool(p, 'registration.enabled', raw.registration.enabled);
      stringList(p, 'registration.allowedGrantTypes', raw.registration.allowedGrantTypes, false);
      stringList(p, 'registration.allowedScopes', raw.registration.allowedScopes, false);
      stringList(p, 'registration.allowedAuthMethods', raw.registration.allowedAuthMethods, false);
      oneOf(p, 'registration.redirectUris', raw.registration.redirectUris, ['https', 'https-or-loopback']);
      // A minute to ten years.
      int(p, 'registration.registrationAccessTokenLifetime', raw.registration.registrationAccessTokenLifetime, 60, 10 * 365 * 86_400);
      if (raw.registration.enabled === true && raw.clientStores !== undefined && isObject(raw.clientStores) && raw.clientStores.database === false) {
        p.add('registration.enabled', 'registered clients live in the database store: set clientStores.database to true, or leave registration off');
      }
    }
  }
  if (raw.limits !== undefined) {
    if (!isObject(raw.limits)) p.add('limits', `expected an object, got ${describe(raw.limits)}`);
    else {
      checkUnknownFields(p, 'limits', raw.limits, ['bodyBytes', 'parameters']);
      int(p, 'limits.bodyBytes', raw.limits.bodyBytes, 1024, 10 * 1024 * 1024);
      int(p, 'limits.parameters', raw.limits.parameters, 5, 1000);
    }
  }
}

/** `counters` names where the throttles count; "store" needs a store every node shares. */
function checkCounters(p: Problems, raw: Record<string, unknown>): void {
  if (str(p, 'counters', raw.counters)) {
    if (raw.counters === 'store') {
      const store = typeof raw.store === 'string' ? raw.store : defaults.store;
      if (!/^postgres(ql)?:\/\//.test(store)) {
        p.add('counters', `"store" keeps the counters in PostgreSQL and needs a "postgres://..." store, got store ${describe(store.replace(/\/\/[^@/]*@/, '//***@'))}; use "memory" or "redis://..."`);
      }
    } else if (raw.counters !== 'memory' && !/^rediss?:\/\/[^/]/.test(raw.counters)) {
      // Only the scheme is echoed: a Redis URL may carry a password.
      const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(raw.counters)?.[0];
      p.add('counters', `expected "memory", "store" or "redis://host:port", got ${scheme ? `a value starting with "${scheme}"` : describe(raw.counters)}`);
    }
  }
  if (str(p, 'counterKeyPrefix', raw.counterKeyPrefix, { max: 100 }) && raw.counterKeyPrefix === '') {
    p.add('counterKeyPrefix', 'expected a non-empty string such as "svc:"');
  }
}

/** An optional object of whole numbers of at least `min`, e.g. `passwordThrottle`. */
function checkNumbers(p: Problems, raw: Record<string, unknown>, field: string, fields: readonly string[], min: number): void {
  const value = raw[field];
  if (value === undefined) return;
  if (!isObject(value)) return p.add(field, `expected an object, got ${describe(value)}`);
  checkUnknownFields(p, field, value, fields);
  for (const f of fields) int(p, `${field}.${f}`, value[f], min);
}

const connectionFields = ['firstByteTimeout', 'headersTimeout', 'requestTimeout', 'keepAliveTimeout'] as const;

function checkConnections(p: Problems, value: unknown): void {
  if (value === undefined) return;
  if (!isObject(value)) return p.add('connections', `expected an object, got ${describe(value)}`);
  checkUnknownFields(p, 'connections', value, connectionFields);
  // Milliseconds: at least 100 ms, at most an hour.
  for (const f of connectionFields) int(p, `connections.${f}`, value[f], 100, 3_600_000);
  // Node refuses a headers time-out above the request time-out; a first-byte bound above the
  // headers bound would let a silent connection outlast a slow one.
  const n = (f: (typeof connectionFields)[number]): number | undefined => (typeof value[f] === 'number' ? value[f] : undefined);
  const headers = n('headersTimeout') ?? defaults.connections.headersTimeout;
  const request = n('requestTimeout') ?? defaults.connections.requestTimeout;
  const firstByte = n('firstByteTimeout') ?? defaults.connections.firstByteTimeout;
  if (headers > request) p.add('connections.headersTimeout', `must not exceed connections.requestTimeout (${request}), got ${headers}`);
  if (firstByte > headers) p.add('connections.firstByteTimeout', `must not exceed connections.headersTimeout (${headers}), got ${firstByte}`);
}

/** `tls` and `mtls`: the shapes here; the files are read (and their contents checked) at start-up, `tls-material.ts`. */
function checkTls(p: Problems, raw: Raw): void {
  if (raw.tls !== undefined) {
    if (!isObject(raw.tls)) p.add('tls', `expected { certificate, key, requestClientCertificate? }, got ${describe(raw.tls)}`);
    else {
      checkUnknownFields(p, 'tls', raw.tls, ['certificate', 'key', 'requestClientCertificate']);
      str(p, 'tls.certificate', raw.tls.certificate, { required: true });
      str(p, 'tls.key', raw.tls.key, { required: true });
      bool(p, 'tls.requestClientCertificate', raw.tls.requestClientCertificate);
      if (typeof raw.issuer === 'string' && raw.issuer.startsWith('http:')) {
        p.add('issuer', `the service terminates TLS itself (tls is set): expected an https issuer, got ${describe(raw.issuer)}`);
      }
    }
  }
  if (raw.mtls === undefined) return;
  if (!isObject(raw.mtls)) return p.add('mtls', `expected an object, got ${describe(raw.mtls)}`);
  const m = raw.mtls;
  checkUnknownFields(p, 'mtls', m, ['clientCa', 'certificateHeader', 'certificateBoundAccessTokens', 'endpointAliasesBaseUrl']);
  str(p, 'mtls.clientCa', m.clientCa);
  // RFC 9110 §5.1: a header name is a token.
  if (str(p, 'mtls.certificateHeader', m.certificateHeader, { max: 100 }) && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(m.certificateHeader)) {
    p.add('mtls.certificateHeader', `expected a header name such as "x-ssl-client-cert", got ${describe(m.certificateHeader)}`);
  }
  bool(p, 'mtls.certificateBoundAccessTokens', m.certificateBoundAccessTokens);
  if (str(p, 'mtls.endpointAliasesBaseUrl', m.endpointAliasesBaseUrl)) {
    let url: URL | undefined;
    try {
      url = new URL(m.endpointAliasesBaseUrl);
    } catch {
      url = undefined;
    }
    // RFC 8705 §5: clients send their certificates there, so over TLS.
    if (url?.protocol !== 'https:' || url.search || url.hash) {
      p.add('mtls.endpointAliasesBaseUrl', `expected an https URL without query or fragment, such as "https://mtls.example.com", got ${describe(m.endpointAliasesBaseUrl)}`);
    }
  }
}
