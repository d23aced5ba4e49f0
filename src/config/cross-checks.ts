/**
 * The checks that join two fields or two parts of the config, which no single field's
 * declaration (`schema.ts`, `src/sdk/model.ts`) can make: a scope a client names must be defined,
 * a public client must use PKCE, names are unique, and the like. They read the raw config
 * defensively, so they run (and report) beside whatever the schema found wrong.
 */
import { describeValue, pathOf } from './fields.js';
import { checkBranding } from './validate-branding.js';
import { checkHiddenPasswordForm } from './identity-providers.js';
import { didYouMean } from './closest-name.js';
import type { Problem } from './issues.js';
import { redirectUriAdvice, redirectUriProblem } from './redirect-uri-rules.js';
import { checkFapi2Config } from './fapi2-profile.js';

type Raw = Record<string, unknown>;

const isObject = (value: unknown): value is Raw => typeof value === 'object' && value !== null && !Array.isArray(value);
const objects = (value: unknown): Raw[] => (Array.isArray(value) ? value : []).map((v) => (isObject(v) ? v : {}));
const strings = (value: unknown): string[] => (Array.isArray(value) ? value : []).map((v) => (typeof v === 'string' ? v : ''));

/** Default of `signing.idTokenAlgorithms` (the declaration's). */
const defaultIdTokenAlgorithms = ['RS256'];
/** Default of `signing.accessTokenAlgorithm` (the declaration's). */
const defaultAccessTokenAlgorithm = 'ES256';
const defaultConnections = { firstByteTimeout: 5000, headersTimeout: 10_000, requestTimeout: 30_000 };
const defaultStore = 'sqlite:./data/svc.db';

export function crossCheck(raw: unknown): Problem[] {
  if (!isObject(raw)) return [];
  const problems: Problem[] = [];
  const add = (path: readonly PropertyKey[], message: string, placeAt?: readonly PropertyKey[]): void => {
    problems.push(placeAt === undefined ? { path, message } : { path, message, placeAt });
  };
  const model = checkModel(raw, add);
  const clientIndex = checkClients(raw, model, add);
  checkUsers(raw, clientIndex, add);
  checkOperations(raw, add);
  // Issue 37: the FAPI 2.0 profile's rules that are config, for every client under it.
  checkFapi2Config(raw, add);
  // `pages`: its URLs must be https where the issuer is (`validate-branding.ts`).
  checkBranding({ add: (path, message) => add(pathOf(path), message) }, raw.pages, typeof raw.issuer === 'string' && raw.issuer.startsWith('https:'));
  // ISSUE 34: `upstreamSignIn.hidePasswordForm` without `identityProviders` would lock everyone out.
  checkHiddenPasswordForm({ add: (path, message) => add(pathOf(path), message) }, raw);
  checkPasskeys(raw, add);
  return problems;
}

/**
 * Issue 35: WebAuthn takes the issuer's host as the relying party id, which must be a domain
 * (WebAuthn §5.1.4.1: a "valid domain string", never an IP address), in a secure context: https,
 * or `localhost` over http. Passkeys on any other issuer would fail in every browser.
 */
function checkPasskeys(raw: Raw, add: Add): void {
  if (!isObject(raw.secondFactor) || raw.secondFactor.passkeys !== true || typeof raw.issuer !== 'string' || !URL.canParse(raw.issuer)) return;
  const { protocol, hostname } = new URL(raw.issuer);
  const localhost = hostname === 'localhost' || hostname.endsWith('.localhost');
  if (/^\[|^\d+\.\d+\.\d+\.\d+$/.test(hostname)) {
    add(['secondFactor', 'passkeys'], `passkeys need an issuer whose host is a domain name (the WebAuthn relying party id), not an IP address, got issuer ${describeValue(raw.issuer)}`);
  } else if (protocol !== 'https:' && !localhost) {
    add(['secondFactor', 'passkeys'], `passkeys need an https issuer (or http://localhost while trying them), got issuer ${describeValue(raw.issuer)}`);
  }
}

type Add = (path: readonly PropertyKey[], message: string, placeAt?: readonly PropertyKey[]) => void;

interface ModelNames {
  readonly scopeNames: ReadonlySet<string>;
  readonly identityNames: ReadonlySet<string>;
  readonly resourceNames: ReadonlySet<string>;
}

function unique(list: readonly Raw[], field: string, at: string, add: Add): Set<string> {
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const name = item[field];
    if (typeof name !== 'string') return;
    if (seen.has(name)) add([at, i, field], `duplicate ${field} "${name}"`);
    seen.add(name);
  });
  return seen;
}

/** API scopes, identity resources and API resources: unique names that refer to each other. */
function checkModel(raw: Raw, add: Add): ModelNames {
  const scopeNames = unique(objects(raw.apiScopes), 'name', 'apiScopes', add);
  const identityResources = objects(raw.identityResources);
  identityResources.forEach((r, i) => {
    if (typeof r.name === 'string' && scopeNames.has(r.name)) add(['identityResources', i, 'name'], `"${r.name}" is also an API scope`);
  });
  const identityNames = unique(identityResources, 'name', 'identityResources', add);
  if (identityNames.size > 0 && !identityNames.has('openid')) {
    add(['identityResources'], 'identity resources need the "openid" resource (OpenID Connect Core §3.1.2.1)');
  }
  const apiResources = objects(raw.apiResources);
  apiResources.forEach((r, i) => {
    strings(r.scopes).forEach((scope, j) => {
      if (scope !== '' && !scopeNames.has(scope)) add(['apiResources', i, 'scopes', j], `unknown scope "${scope}"${didYouMean(scope, [...scopeNames])} (define it in apiScopes)`);
    });
  });
  const resourceNames = unique(apiResources, 'name', 'apiResources', add);
  // RFC 8707: one URI names one API, and the `aud` it becomes must not be another API's name.
  unique(apiResources, 'uri', 'apiResources', add);
  apiResources.forEach((r, i) => {
    if (typeof r.uri === 'string' && resourceNames.has(r.uri) && r.uri !== r.name) add(['apiResources', i, 'uri'], `"${r.uri}" is the name of another API resource; a token's aud would name both`);
  });
  // RFC 9701: an API's introspection answers are signed with a key the service keeps.
  const signing = isObject(raw.signing) ? raw.signing : {};
  const held = [
    typeof signing.accessTokenAlgorithm === 'string' ? signing.accessTokenAlgorithm : defaultAccessTokenAlgorithm,
    ...(Array.isArray(signing.idTokenAlgorithms) ? strings(signing.idTokenAlgorithms) : defaultIdTokenAlgorithms),
  ].filter((alg, k, all) => alg !== '' && all.indexOf(alg) === k);
  apiResources.forEach((r, i) => {
    const alg = r.introspectionSigningAlgorithm;
    if (typeof alg === 'string' && alg !== '' && !held.includes(alg)) {
      add(['apiResources', i, 'introspectionSigningAlgorithm'], `"${alg}" is not an algorithm the service signs with (${held.join(', ')}); add it to signing.idTokenAlgorithms`);
    }
  });
  // JARM: a client's signed authorization responses too.
  objects(raw.clients).forEach((c, i) => {
    const alg = c.authorizationSignedResponseAlg;
    if (typeof alg === 'string' && alg !== '' && !held.includes(alg)) {
      add(['clients', i, 'authorizationSignedResponseAlg'], `"${alg}" is not an algorithm the service signs with (${held.join(', ')}); add it to signing.idTokenAlgorithms`);
    }
  });
  return { scopeNames, identityNames, resourceNames };
}

/** Every client; returns client id to its index, for the users' check. */
function checkClients(raw: Raw, { scopeNames, identityNames }: ModelNames, add: Add): ReadonlyMap<string, number> {
  const knownScopes = [...scopeNames, ...identityNames];
  const signing = isObject(raw.signing) ? raw.signing : {};
  const offered = Array.isArray(signing.idTokenAlgorithms) ? strings(signing.idTokenAlgorithms).filter((a) => a !== '') : defaultIdTokenAlgorithms;
  const httpsIssuer = typeof raw.issuer === 'string' && raw.issuer.startsWith('https:');
  const clients = objects(raw.clients);
  clients.forEach((c, i) => {
    const at = (...rest: PropertyKey[]): PropertyKey[] => ['clients', i, ...rest];
    const isPublic = c.requireClientSecret === false;
    const secretCount = Array.isArray(c.clientSecrets) ? c.clientSecrets.length : 0;
    if (!isPublic && secretCount === 0) {
      add(at('clientSecrets'), 'a confidential client needs at least one secret (or set requireClientSecret: false for a public client)');
    }
    strings(c.allowedGrantTypes).forEach((grant, j) => {
      // RFC 6749 §4.4: client_credentials is for confidential clients; a public one would give tokens to anyone who knows its id.
      if (grant === 'client_credentials' && isPublic) {
        add(at('allowedGrantTypes', j), 'client_credentials needs a confidential client (RFC 6749 §4.4): a public client (requireClientSecret: false) would give tokens to anyone who knows its id; give it a secret or remove the grant');
      }
    });
    strings(c.allowedScopes).forEach((scope, j) => {
      if (scope === '') return;
      if (scope === 'offline_access') add(at('allowedScopes', j), 'offline_access is not listed; set allowOfflineAccess: true instead');
      else if (!knownScopes.includes(scope)) add(at('allowedScopes', j), `unknown scope "${scope}"${didYouMean(scope, knownScopes)} (known: ${knownScopes.join(', ') || 'none; define apiScopes'})${identityScopeHint(scope)}`);
    });
    strings(c.tokenEndpointAuthMethods).forEach((m, j, list) => {
      if (m === 'none' && !isPublic && list.indexOf(m) === j) add(at('tokenEndpointAuthMethods', j), '"none" is for public clients; set requireClientSecret: false or remove it');
    });
    for (const field of ['redirectUris', 'postLogoutRedirectUris'] as const) {
      strings(c[field]).forEach((uri, j) => {
        const found = uri === '' ? undefined : redirectUriProblem(uri, { httpsIssuer });
        if (found) add(at(field, j), redirectUriAdvice(found, describeValue(uri)));
      });
    }
    if (strings(c.allowedGrantTypes).includes('authorization_code') && (!Array.isArray(c.redirectUris) || c.redirectUris.length === 0)) {
      add(at('redirectUris'), 'required with the authorization_code grant: list the exact URIs the client may be sent back to');
    }
    // RFC 9700 §2.1.1: public clients MUST use PKCE.
    if (c.requirePkce === false && isPublic) add(at('requirePkce'), 'a public client (requireClientSecret: false) must use PKCE; remove requirePkce: false');
    strings(c.allowedIdentityTokenSigningAlgorithms).forEach((alg, j) => {
      if (alg !== '' && !offered.includes(alg)) {
        add(at('allowedIdentityTokenSigningAlgorithms', j), `"${alg}" is not one of signing.idTokenAlgorithms (${offered.join(', ')}); the service has keys for those only, so add it there`);
      }
    });
  });
  const clientIndex = new Map<string, number>();
  clients.forEach((c, i) => {
    if (typeof c.clientId === 'string' && !clientIndex.has(c.clientId)) clientIndex.set(c.clientId, i);
  });
  unique(clients, 'clientId', 'clients', add);
  return clientIndex;
}

function checkUsers(raw: Raw, clientIndex: ReadonlyMap<string, number>, add: Add): void {
  const users = objects(raw.users);
  users.forEach((u, i) => {
    // A client_credentials token's sub is the client id (RFC 9068 §2.2): a user with the same
    // subject id would get tokens no API could tell from the client's own.
    const clash = typeof u.subjectId === 'string' ? clientIndex.get(u.subjectId) : undefined;
    if (clash !== undefined) {
      add(['users', i, 'subjectId'], `"${u.subjectId as string}" is also the clientId of clients[${clash}]; this user's tokens could not be told from that client's own (both have sub "${u.subjectId as string}"). Give the user another subjectId`);
    }
  });
  unique(users, 'subjectId', 'users', add);
  unique(users, 'username', 'users', add);
}

function checkOperations(raw: Raw, add: Add): void {
  if (isObject(raw.connections)) {
    const value = raw.connections;
    // Node refuses a headers time-out above the request time-out; a first-byte bound above the
    // headers bound would let a silent connection outlast a slow one.
    const n = (f: keyof typeof defaultConnections): number => (typeof value[f] === 'number' ? value[f] : defaultConnections[f]);
    const headers = n('headersTimeout');
    const request = n('requestTimeout');
    const firstByte = n('firstByteTimeout');
    if (headers > request) add(['connections', 'headersTimeout'], `must not exceed connections.requestTimeout (${request}), got ${headers}`);
    if (firstByte > headers) add(['connections', 'firstByteTimeout'], `must not exceed connections.headersTimeout (${headers}), got ${firstByte}`);
  }
  if (raw.counters === 'store') {
    // "store" needs a store every node shares.
    const store = typeof raw.store === 'string' ? raw.store : defaultStore;
    if (!/^postgres(ql)?:\/\//.test(store)) {
      add(['counters'], `"store" keeps the counters in PostgreSQL and needs a "postgres://..." store, got store ${describeValue(store.replace(/\/\/[^@/]*@/, '//***@'))}; use "memory" or "redis://..."`);
    }
  }
  if (raw.pageSecret !== undefined && isObject(raw.deviceFlow) && raw.deviceFlow.cookieSecret !== undefined) {
    add(['deviceFlow', 'cookieSecret'], 'the old name of pageSecret: set pageSecret only');
  }
  if (isObject(raw.tls) && typeof raw.issuer === 'string' && raw.issuer.startsWith('http:')) {
    add(['issuer'], `the service terminates TLS itself (tls is set): expected an https issuer, got ${describeValue(raw.issuer)}`, ['tls']);
  }
  // Issue 39: the admin API never shares the public listener.
  if (isObject(raw.admin) && typeof raw.admin.port === 'number' && raw.admin.port !== 0 && raw.admin.port === (typeof raw.port === 'number' ? raw.port : 5000)) {
    add(['admin', 'port'], `must differ from port (${raw.admin.port}): the admin API has a listener of its own`);
  }
  if (isObject(raw.registration) && raw.registration.enabled === true && isObject(raw.clientStores) && raw.clientStores.database === false) {
    add(['registration', 'enabled'], 'registered clients live in the database store: set clientStores.database to true, or leave registration off');
  }
}

/** OpenID Connect Core §5.4's scopes: missing from the config, they are identity resources nobody defined. */
const standardIdentityScopes = new Set(['openid', 'profile', 'email', 'address', 'phone']);

function identityScopeHint(scope: string): string {
  if (!standardIdentityScopes.has(scope)) return '';
  const claims = scope === 'openid' ? '["sub"]' : scope === 'profile' ? '["name"]' : `["${scope}"]`;
  return `; "${scope}" is an identity scope: define it in identityResources, e.g. { name: "${scope}", claims: ${claims} }`;
}
