/**
 * Fills in every default (declared with each field in `schema.ts`, the only place they live),
 * resolves relative paths against the config file's folder, parses dates once, and freezes the
 * result. Call only on a config that `validateUserConfig` accepted; runs once, at start-up (and
 * when a store's client is checked), never per request.
 */
import { availableParallelism } from 'node:os';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { BootError } from './boot-error.js';
import { problemLines } from './issues.js';
import { setAsidePluginFields } from './plugin-client-fields.js';
import { userConfigSchema, type KeySource, type ResolvedConfig, type SigningAlgorithm, type UserConfig } from './schema.js';
import { tracingSettings } from './tracing-settings.js';
import { resolveBranding, resolveDescription } from './branding.js';
import { resolvePasswordRules } from './password-rules.js';
// ISSUE 34 (upstream sign-in).
import { resolveIdentityProviders } from './identity-providers.js';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function resolveConfig(user: UserConfig, configDir: string): ResolvedConfig {
  // Fields no part of the service declares are plugins': kept as written, judged once they load.
  const { hostConfig, pluginFields } = setAsidePluginFields(user);
  const result = userConfigSchema.safeParse(hostConfig);
  if (!result.success) throw new BootError('CONFIG_INVALID', problemLines(userConfigSchema, result.error.issues));
  // A fresh copy: zod hands back the user's own objects where it has nothing to fill in.
  const c = structuredClone(result.data);
  const inDir = (p: string): string => (isAbsolute(p) ? p : resolvePath(configDir, p));
  const keySource = (k: string | { path: string } | { env: string }): KeySource =>
    typeof k === 'string' ? { path: inDir(k) } : 'path' in k ? { path: inDir(k.path) } : { env: k.env };
  const issuer = (c.issuer ?? `http://localhost:${c.port}`).replace(/\/+$/, '');

  // `as`: a field without a default that the user left out is an absent key here, which reads
  // as the `undefined` the resolved type promises.
  const { cookieSecret, ...deviceFlow } = c.deviceFlow;
  const deprecations = cookieSecret === undefined ? [] : [
    'deviceFlow.cookieSecret is now called pageSecret (it keys every page and the DPoP nonces, not only the device flow): rename it; the old name is still read',
  ];
  return deepFreeze({
    ...c,
    issuer,
    deviceFlow,
    pageSecret: c.pageSecret ?? cookieSecret,
    deprecations,
    configDir,
    // A client's own `fapi2`, else the global one: the code reads only the client's.
    clients: c.clients.map((client, i) => ({
      ...client,
      ...(client.fapi2 === undefined && c.fapi2 !== 'off' ? { fapi2: c.fapi2 } : {}),
      pluginFields: pluginFields[i] ?? {},
    })),
    apiScopes: c.apiScopes.map(({ description, ...s }) => ({ ...s, ...resolveDescription(description) })),
    identityResources: c.identityResources.map(({ description, ...r }) => ({ ...r, ...resolveDescription(description) })),
    pages: resolveBranding(c.pages, configDir),
    passwordRules: resolvePasswordRules(c.passwordRules),
    // ISSUE 34 (upstream sign-in).
    ...resolveIdentityProviders(c),
    pluginDirs: c.pluginDirs.map(inDir),
    pluginDirsRequired: user.pluginDirs !== undefined,
    signing: {
      ...c.signing,
      idTokenAlgorithms: c.signing.idTokenAlgorithms as SigningAlgorithm[],
      keys: c.signing.keys.map(keySource),
      keyEncryptionKeys: c.signing.keyEncryptionKeys.map(keySource),
      threads: c.signing.threads === 'auto' ? availableParallelism() : c.signing.threads,
    },
    tracing: tracingSettings(user.tracing, process.env),
    tls: c.tls === undefined ? undefined : { ...c.tls, certificate: inDir(c.tls.certificate), key: inDir(c.tls.key) },
    admin: c.admin === undefined ? undefined : {
      ...c.admin,
      tls: c.admin.tls === undefined ? undefined : { ...c.admin.tls, certificate: inDir(c.admin.tls.certificate), key: inDir(c.admin.tls.key), clientCa: inDir(c.admin.tls.clientCa) },
    },
    mtls: {
      clientCa: c.mtls.clientCa === undefined ? undefined : inDir(c.mtls.clientCa),
      certificateHeader: c.mtls.certificateHeader?.toLowerCase(),
      certificateBoundAccessTokens: c.mtls.certificateBoundAccessTokens,
      endpointAliasesBaseUrl: (c.mtls.endpointAliasesBaseUrl ?? issuer).replace(/\/+$/, ''),
    },
    workers: c.workers === 'auto' ? availableParallelism() : c.workers,
  } as ResolvedConfig);
}
