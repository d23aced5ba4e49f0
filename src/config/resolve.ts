/**
 * Fills in every default (from `defaults.ts`, the only place they live), resolves relative
 * paths against the config file's folder, parses dates once, and freezes the result.
 * Call only on a config that `validateUserConfig` accepted.
 */
import { tracingSettings } from './tracing-settings.js';
import { availableParallelism } from 'node:os';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { defaults } from './defaults.js';
// ISSUE 34 (upstream sign-in).
import { resolveIdentityProviders } from './identity-providers.js';
import type {
  ApiResource, Client, KeySource, ResolvedConfig, Secret, SecretConfig, SigningAlgorithm, UserConfig,
} from './schema.js';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function resolveSecret(s: SecretConfig): Secret {
  return {
    value: s.value,
    type: s.type ?? defaults.secretType,
    description: s.description,
    expiresAt: s.expiration === undefined ? undefined : Date.parse(s.expiration),
  };
}

export function resolveConfig(user: UserConfig, configDir: string): ResolvedConfig {
  const port = user.port ?? defaults.port;
  const d = defaults.client;
  const inDir = (p: string): string => (isAbsolute(p) ? p : resolvePath(configDir, p));
  const store = user.store ?? defaults.store;

  const clients: Client[] = (user.clients ?? []).map((c) => ({
    clientId: c.clientId,
    clientName: c.clientName,
    clientSecrets: (c.clientSecrets ?? []).map(resolveSecret),
    requireClientSecret: c.requireClientSecret ?? d.requireClientSecret,
    allowedGrantTypes: [...c.allowedGrantTypes],
    allowedScopes: [...c.allowedScopes],
    accessTokenLifetime: c.accessTokenLifetime ?? d.accessTokenLifetime,
    accessTokenType: c.accessTokenType ?? d.accessTokenType,
    allowOfflineAccess: c.allowOfflineAccess ?? d.allowOfflineAccess,
    absoluteRefreshTokenLifetime: c.absoluteRefreshTokenLifetime ?? d.absoluteRefreshTokenLifetime,
    slidingRefreshTokenLifetime: c.slidingRefreshTokenLifetime ?? d.slidingRefreshTokenLifetime,
    refreshTokenReuseInterval: c.refreshTokenReuseInterval ?? d.refreshTokenReuseInterval,
    deviceCodeLifetime: c.deviceCodeLifetime ?? d.deviceCodeLifetime,
    pollingInterval: c.pollingInterval ?? d.pollingInterval,
    properties: { ...c.properties },
    allowedCorsOrigins: [...(c.allowedCorsOrigins ?? [])],
    tokenEndpointAuthMethods: c.tokenEndpointAuthMethods === undefined ? defaults.client.tokenEndpointAuthMethods : [...c.tokenEndpointAuthMethods],
    allowedSubjectTokenAudiences: [...(c.allowedSubjectTokenAudiences ?? defaults.client.allowedSubjectTokenAudiences)],
    redirectUris: [...(c.redirectUris ?? d.redirectUris)],
    postLogoutRedirectUris: [...(c.postLogoutRedirectUris ?? d.postLogoutRedirectUris)],
    requirePkce: c.requirePkce ?? d.requirePkce,
    requireConsent: c.requireConsent ?? d.requireConsent,
    requirePushedAuthorization: c.requirePushedAuthorization ?? d.requirePushedAuthorization,
    authorizationCodeLifetime: c.authorizationCodeLifetime ?? d.authorizationCodeLifetime,
    requireCertificateBoundTokens: c.requireCertificateBoundTokens ?? d.requireCertificateBoundTokens,
    requireDPoP: c.requireDPoP ?? d.requireDPoP,
    allowedIdentityTokenSigningAlgorithms: [...(c.allowedIdentityTokenSigningAlgorithms ?? d.allowedIdentityTokenSigningAlgorithms)],
  }));
  const apiResources: ApiResource[] = (user.apiResources ?? []).map((r) => ({
    name: r.name,
    scopes: [...r.scopes],
    secrets: (r.secrets ?? []).map(resolveSecret),
  }));
  const keySource = (k: string | { path: string } | { env: string }): KeySource =>
    typeof k === 'string' ? { path: inDir(k) } : 'path' in k ? { path: inDir(k.path) } : { env: k.env };
  const keys = (user.signing?.keys ?? []).map(keySource);
  const keyEncryptionKeys = (user.signing?.keyEncryptionKeys ?? []).map(keySource);

  const issuer = (user.issuer ?? `http://localhost:${port}`).replace(/\/+$/, '');

  return deepFreeze({
    issuer,
    port,
    host: user.host ?? defaults.host,
    configDir,
    pluginDirs: (user.pluginDirs ?? defaults.pluginDirs).map(inDir),
    pluginDirsRequired: user.pluginDirs !== undefined,
    packagePlugins: [...(user.packagePlugins ?? defaults.packagePlugins)],
    plugins: structuredClone(user.plugins ?? {}),
    store,
    cleanupInterval: user.cleanupInterval ?? defaults.cleanupInterval,
    clients,
    apiScopes: (user.apiScopes ?? []).map((s) => ({ name: s.name, description: s.description })),
    apiResources,
    identityResources: (user.identityResources ?? []).map((r) => ({
      name: r.name,
      description: r.description,
      claims: [...r.claims],
    })),
    users: (user.users ?? []).map((u) => ({
      subjectId: u.subjectId,
      username: u.username,
      password: u.password,
      claims: { ...u.claims },
    })),
    signing: {
      accessTokenAlgorithm: (user.signing?.accessTokenAlgorithm ?? defaults.signing.accessTokenAlgorithm) as SigningAlgorithm,
      idTokenAlgorithms: [...(user.signing?.idTokenAlgorithms ?? defaults.signing.idTokenAlgorithms)] as SigningAlgorithm[],
      keys,
      keyEncryptionKeys,
      rotationInterval: user.signing?.rotationInterval ?? defaults.signing.rotationInterval,
      propagationTime: user.signing?.propagationTime ?? defaults.signing.propagationTime,
      refreshInterval: user.signing?.refreshInterval ?? defaults.signing.refreshInterval,
      threads: user.signing?.threads === 'auto' ? availableParallelism() : (user.signing?.threads ?? defaults.signing.threads),
    },
    deviceFlow: {
      userCodeFormat: user.deviceFlow?.userCodeFormat ?? defaults.deviceFlow.userCodeFormat,
      maxFailedAttempts: user.deviceFlow?.maxFailedAttempts ?? defaults.deviceFlow.maxFailedAttempts,
      failedAttemptsWindow: user.deviceFlow?.failedAttemptsWindow ?? defaults.deviceFlow.failedAttemptsWindow,
      cookieSecret: user.deviceFlow?.cookieSecret,
      maxAuthorizationsPerAddress: user.deviceFlow?.maxAuthorizationsPerAddress ?? defaults.deviceFlow.maxAuthorizationsPerAddress,
      maxAuthorizationsPerClient: user.deviceFlow?.maxAuthorizationsPerClient ?? defaults.deviceFlow.maxAuthorizationsPerClient,
      authorizationsWindow: user.deviceFlow?.authorizationsWindow ?? defaults.deviceFlow.authorizationsWindow,
    },
    limits: {
      bodyBytes: user.limits?.bodyBytes ?? defaults.limits.bodyBytes,
      parameters: user.limits?.parameters ?? defaults.limits.parameters,
    },
    logLevel: user.logLevel ?? defaults.logLevel,
    metrics: { enabled: user.metrics?.enabled ?? defaults.metrics.enabled, bearerToken: user.metrics?.bearerToken },
    tracing: tracingSettings(user.tracing, process.env),
    authThrottle: { ...defaults.authThrottle, ...user.authThrottle },
    passwordThrottle: { ...defaults.passwordThrottle, ...user.passwordThrottle },
    introspectionLimit: { ...defaults.introspectionLimit, ...user.introspectionLimit },
    interactionLimit: { ...defaults.interactionLimit, ...user.interactionLimit },
    connections: { ...defaults.connections, ...user.connections },
    trustedProxies: [...(user.trustedProxies ?? defaults.trustedProxies)],
    forwardedHeader: user.forwardedHeader ?? defaults.forwardedHeader,
    counters: user.counters ?? defaults.counters,
    counterKeyPrefix: user.counterKeyPrefix ?? defaults.counterKeyPrefix,
    tls: user.tls === undefined ? undefined : {
      certificate: inDir(user.tls.certificate),
      key: inDir(user.tls.key),
      requestClientCertificate: user.tls.requestClientCertificate ?? defaults.tls.requestClientCertificate,
    },
    mtls: {
      clientCa: user.mtls?.clientCa === undefined ? undefined : inDir(user.mtls.clientCa),
      certificateHeader: user.mtls?.certificateHeader?.toLowerCase(),
      certificateBoundAccessTokens: user.mtls?.certificateBoundAccessTokens ?? defaults.mtls.certificateBoundAccessTokens,
      endpointAliasesBaseUrl: (user.mtls?.endpointAliasesBaseUrl ?? issuer).replace(/\/+$/, ''),
    },
    dpop: {
      ...defaults.dpop,
      ...user.dpop,
      signingAlgValues: [...(user.dpop?.signingAlgValues ?? defaults.dpop.signingAlgValues)],
    },
    clientStores: { ...defaults.clientStores, ...user.clientStores },
    registration: {
      enabled: user.registration?.enabled ?? defaults.registration.enabled,
      allowedGrantTypes: [...(user.registration?.allowedGrantTypes ?? defaults.registration.allowedGrantTypes)],
      allowedScopes: [...(user.registration?.allowedScopes ?? defaults.registration.allowedScopes)],
      allowedAuthMethods: [...(user.registration?.allowedAuthMethods ?? defaults.registration.allowedAuthMethods)],
      redirectUris: user.registration?.redirectUris ?? defaults.registration.redirectUris,
      registrationAccessTokenLifetime: user.registration?.registrationAccessTokenLifetime ?? defaults.registration.registrationAccessTokenLifetime,
    },
    workers: user.workers === 'auto' ? availableParallelism() : (user.workers ?? defaults.workers),
    // ISSUE 34 (upstream sign-in).
    ...resolveIdentityProviders(user),
  });
}
