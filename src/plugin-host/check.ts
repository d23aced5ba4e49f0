/**
 * Checks what a plugin exports before anything of it runs, and what its factories return.
 * Every message names the plugin folder and says what was expected and what was found.
 */
import { BootError } from '../config/boot-error.js';
import type { ClientSignatureVerifier, ClientStore, ExtensionGrantValidator, Plugin, ResourceOwnerValidator, SecretParser, SecretValidator } from '../sdk/contracts.js';
import type { ServiceEventType } from '../sdk/events.js';
import type { PluginFolder } from './discover.js';

const pluginKeys = ['name', 'description', 'options', 'secretParsers', 'secretValidators', 'extensionGrants', 'eventSinks', 'resourceOwnerValidator', 'signInPage', 'clientStores', 'clientSignatureVerifiers', 'clientFields'];
export const factoryLists = ['secretParsers', 'secretValidators', 'extensionGrants', 'eventSinks', 'clientStores', 'clientSignatureVerifiers'] as const;
export type FactoryList = (typeof factoryLists)[number];
/** What a plugin can provide: a list of parts, or the one resource owner validator. */
export type PluginPart = FactoryList | 'resourceOwnerValidator' | 'signInPage';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

export function checkPluginExport(value: unknown, folder: PluginFolder): Plugin {
  const fail = (msg: string): never => {
    throw new BootError('PLUGIN_INVALID', `plugin folder ${folder.dir}: ${msg}`);
  };
  if (!isObject(value)) fail(`the index must default-export a plugin object { name, options?, secretParsers?, secretValidators?, extensionGrants?, eventSinks?, resourceOwnerValidator? }, found ${kind(value)}`);
  const plugin = value as Record<string, unknown>;
  for (const key of Object.keys(plugin)) {
    if (!pluginKeys.includes(key)) fail(`unknown member "${key}" (known: ${pluginKeys.join(', ')})`);
  }
  if (typeof plugin.name !== 'string' || plugin.name !== folder.name) {
    fail(`name must equal the folder name "${folder.name}", found ${typeof plugin.name === 'string' ? `"${plugin.name}"` : kind(plugin.name)}`);
  }
  for (const list of factoryLists) {
    const factories = plugin[list];
    if (factories === undefined) continue;
    if (!Array.isArray(factories)) fail(`${list} must be an array of factory functions, found ${kind(factories)}`);
    (factories as unknown[]).forEach((f, i) => {
      if (typeof f !== 'function') fail(`${list}[${i}] must be a factory function (deps) => ..., found ${kind(f)}`);
    });
  }
  if (plugin.options !== undefined && typeof plugin.options !== 'function') fail(`options must be a parser function (raw) => options, found ${kind(plugin.options)}`);
  if (plugin.clientFields !== undefined) {
    if (!Array.isArray(plugin.clientFields)) fail(`clientFields must be an array of client fields (defineClientField), found ${kind(plugin.clientFields)}`);
    (plugin.clientFields as unknown[]).forEach((f, i) => {
      const field = f as { name?: unknown; check?: unknown; read?: unknown; description?: unknown };
      if (!isObject(f) || typeof field.name !== 'string' || field.name === '' || typeof field.check !== 'function' || typeof field.read !== 'function' || typeof field.description !== 'string') {
        fail(`clientFields[${i}] must be a client field made by defineClientField(name, { description, check, default }), found ${kind(f)}`);
      }
    });
  }
  const owners = plugin.resourceOwnerValidator;
  if (owners !== undefined && typeof owners !== 'function') fail(`resourceOwnerValidator must be a factory function (deps) => ..., found ${kind(owners)}`);
  if (plugin.signInPage !== undefined && typeof plugin.signInPage !== 'function') fail(`signInPage must be a factory function (deps) => ..., found ${kind(plugin.signInPage)}`);
  return plugin as unknown as Plugin;
}

// `satisfies` keeps this list in step with the ServiceEvent union.
const eventTypes: ReadonlySet<string> = new Set(Object.keys({
  'token.issued': true, 'token.failed': true, 'client.authenticated': true, 'client.authentication_failed': true,
  'api.authenticated': true, 'api.authentication_failed': true, 'token.introspected': true, 'token.revoked': true,
  'device.authorized': true, 'device.approved': true, 'device.denied': true, 'user.signed_in': true,
  'user.sign_in_failed': true, 'consent.given': true, 'consent.denied': true, 'code.issued': true, 'code.redeemed': true,
  'user.signed_out': true, 'second_factor.enrolled': true, 'second_factor.used': true, 'second_factor.failed': true, 'second_factor.removed': true,
  'logout.notified': true, 'logout.failed': true, 'password_reset.requested': true, 'password_reset.sent': true, 'password_reset.used': true, 'client.disabled_used': true, 'client.expired_secret_used': true,
  'api.disabled_used': true, 'api.expired_secret_used': true, 'admin.request': true, 'plugin.loaded': true,
} satisfies Record<ServiceEventType, true>));

/** A contribution's `parameters`, when given: `{ name, maxLength, credential? }` each, no name twice. */
function checkParameters(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return `parameters, when given, must be an array of { name, maxLength, credential?, secret? }, found ${kind(value)}`;
  const seen = new Set<string>();
  for (const [i, p] of value.entries()) {
    if (!isObject(p)) return `parameters[${i}] must be an object { name, maxLength, credential?, secret? }, found ${kind(p)}`;
    if (typeof p.name !== 'string' || p.name.length === 0) return `parameters[${i}].name must be a non-empty string`;
    if (typeof p.maxLength !== 'number' || !Number.isInteger(p.maxLength) || p.maxLength < 1) {
      return `parameters[${i}].maxLength must be a positive whole number of characters, found ${JSON.stringify(p.maxLength) ?? kind(p.maxLength)}`;
    }
    if (p.credential !== undefined && typeof p.credential !== 'boolean') return `parameters[${i}].credential, when given, must be true or false`;
    if (p.secret !== undefined && typeof p.secret !== 'boolean') return `parameters[${i}].secret, when given, must be true or false`;
    if (seen.has(p.name)) return `parameters: "${p.name}" is declared twice`;
    seen.add(p.name);
  }
  return undefined;
}

const isStringList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string' && s.length > 0);

/** Checks what a factory built; returns a message when it is not what its list promises. */
export function checkInstance(list: PluginPart, value: unknown): string | undefined {
  if (!isObject(value)) return `expected an object, the factory returned ${kind(value)}`;
  switch (list) {
    case 'secretParsers': {
      const p = value as Partial<SecretParser>;
      if (typeof p.authenticationMethod !== 'string' || !p.authenticationMethod) return 'authenticationMethod must be a non-empty string';
      if (typeof p.parse !== 'function') return 'parse must be a function';
      if (p.parsedSecretType !== undefined && (typeof p.parsedSecretType !== 'string' || !p.parsedSecretType)) {
        return 'parsedSecretType, when given, must be a non-empty string';
      }
      if (p.fromConnection !== undefined && typeof p.fromConnection !== 'boolean') return 'fromConnection, when given, must be true or false';
      return checkParameters(p.parameters);
    }
    case 'secretValidators': {
      const v = value as Partial<SecretValidator>;
      if (!isStringList(v.parsedSecretTypes)) return 'parsedSecretTypes must be a non-empty array of strings';
      if (!isStringList(v.secretTypes)) return 'secretTypes must be a non-empty array of strings';
      if (typeof v.validate !== 'function') return 'validate must be a function';
      return undefined;
    }
    case 'eventSinks': {
      const s = value as { handle?: unknown; types?: unknown };
      if (typeof s.handle !== 'function') return 'handle must be a function';
      const types = s.types;
      if (types === undefined) return undefined;
      if (!isStringList(types)) return 'types, when given, must be a non-empty array of event types';
      // A misspelt type would leave the sink silently deaf to it; a repeated one would deliver events twice.
      const unknown = types.filter((t) => !eventTypes.has(t));
      if (unknown.length > 0) return `types: unknown event type ${unknown.map((t) => JSON.stringify(t)).join(', ')} (known: ${[...eventTypes].join(', ')})`;
      const repeated = types.find((t, i) => types.indexOf(t) !== i);
      if (repeated !== undefined) return `types: "${repeated}" is listed twice`;
      return undefined;
    }
    case 'resourceOwnerValidator': {
      const r = value as Partial<ResourceOwnerValidator>;
      if (typeof r.validate !== 'function') return 'validate must be a function';
      if (typeof r.findBySubject !== 'function') return 'findBySubject must be a function';
      return undefined;
    }
    case 'signInPage': {
      const page = value as { render?: unknown; authenticate?: unknown; renderConsent?: unknown; renderLogout?: unknown; renderSecondFactor?: unknown; externalSignIn?: unknown; styleSrc?: unknown };
      for (const name of ['render', 'authenticate', 'renderConsent', 'renderLogout', 'renderSecondFactor'] as const) {
        if (page[name] !== undefined && typeof page[name] !== 'function') return `${name}, when given, must be a function`;
      }
      const external = page.externalSignIn as { start?: unknown; callback?: unknown } | undefined;
      if (external !== undefined && (typeof external !== 'object' || external === null || typeof external.start !== 'function' || typeof external.callback !== 'function')) {
        return 'externalSignIn, when given, must have start and callback functions';
      }
      if (page.render === undefined && page.renderConsent === undefined && page.renderLogout === undefined && page.renderSecondFactor === undefined && external === undefined && page.authenticate === undefined) {
        return 'a signInPage must give at least one of render, authenticate, renderConsent, renderLogout, renderSecondFactor or externalSignIn';
      }
      if (page.styleSrc !== undefined && (typeof page.styleSrc !== 'string' || /[;'"\n]/.test(page.styleSrc))) return 'styleSrc, when given, must be CSP sources without ; or quotes';
      return undefined;
    }
    case 'clientStores': {
      const c = value as Partial<ClientStore>;
      if (typeof c.name !== 'string' || !c.name) return 'name must be a non-empty string';
      if (typeof c.load !== 'function') return 'load must be a function';
      if (c.version !== undefined && typeof c.version !== 'function') return 'version, when given, must be a function';
      if (c.used !== undefined && typeof c.used !== 'function') return 'used, when given, must be a function';
      return undefined;
    }
    case 'clientSignatureVerifiers': {
      const v = value as Partial<ClientSignatureVerifier>;
      if (!isStringList(v.secretTypes)) return 'secretTypes must be a non-empty array of strings';
      if (typeof v.verify !== 'function') return 'verify must be a function';
      return undefined;
    }
    case 'extensionGrants': {
      const g = value as Partial<ExtensionGrantValidator>;
      if (typeof g.grantType !== 'string' || !g.grantType) return 'grantType must be a non-empty string';
      if (typeof g.validate !== 'function') return 'validate must be a function';
      if (g.spent !== undefined && typeof g.spent !== 'function') return 'spent, when given, must be a function';
      if (g.redeemed !== undefined && typeof g.redeemed !== 'function') return 'redeemed, when given, must be a function';
      if (g.checkClient !== undefined && typeof g.checkClient !== 'function') return 'checkClient, when given, must be a function';
      return checkParameters(g.parameters);
    }
  }
}
