/**
 * The resolved config: every default filled in, relative paths resolved against the config
 * file's folder, dates parsed once, and the whole thing frozen.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load.js';
import { hashSecret } from '../../src/sdk/hash.js';

const configDir = '/srv/svc/config';
const client = {
  clientId: 'm2m',
  clientSecrets: [{ value: hashSecret('resolve-secret'), expiration: '2030-05-01T12:00:00Z' }],
  allowedGrantTypes: ['client_credentials'],
  allowedScopes: ['api1.read'],
};
const full = {
  apiScopes: [{ name: 'api1.read' }],
  apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
  clients: [client],
};

describe('defaults', () => {
  it('listens on 127.0.0.1:5000 with issuer http://localhost:5000 and plugins from ./plugins next to the config', () => {
    const config = checkConfig({}, configDir);
    expect(config.port).toBe(5000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.issuer).toBe('http://localhost:5000');
    expect(config.pluginDirs).toEqual([join(configDir, 'plugins')]);
    expect(config.configDir).toBe(configDir);
    expect(config.limits).toEqual({ bodyBytes: 65536, parameters: 50 });
    expect(config.signing.accessTokenAlgorithm).toBe('ES256');
  });

  it('derives the default issuer from the configured port', () => {
    expect(checkConfig({ port: 8443 }, configDir).issuer).toBe('http://localhost:8443');
  });

  it('keeps a configured issuer, without a trailing slash', () => {
    expect(checkConfig({ issuer: 'https://id.example.com/', port: 8443 }, configDir).issuer).toBe('https://id.example.com');
  });

  it('resolves relative plugin dirs against the config folder and keeps absolute ones', () => {
    const config = checkConfig({ pluginDirs: ['./plugins', '../shared/plugins', '/opt/svc-plugins'] }, configDir);
    expect(config.pluginDirs).toEqual(['/srv/svc/config/plugins', '/srv/svc/shared/plugins', '/opt/svc-plugins']);
  });

  it('fills in client and secret defaults and parses the expiration once', () => {
    const config = checkConfig(full, configDir);
    const c = config.clients[0]!;
    expect(c.requireClientSecret).toBe(true);
    expect(c.accessTokenLifetime).toBe(3600);
    expect(c.refreshTokenReuseInterval).toBe(5);
    expect(c.clientSecrets[0]).toEqual({
      value: hashSecret('resolve-secret'),
      type: 'SharedSecret',
      description: undefined,
      expiresAt: Date.UTC(2030, 4, 1, 12),
    });
  });
});

describe('the resolved config', () => {
  it('is frozen all the way down', () => {
    const config = checkConfig(full, configDir);
    for (const part of [config, config.clients, config.clients[0], config.clients[0]!.clientSecrets[0], config.clients[0]!.allowedScopes, config.pluginDirs, config.limits]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (config.clients[0]!.allowedScopes as string[]).push('api1.write');
    }).toThrow(TypeError);
  });

  it('does not share or freeze the user object it came from', () => {
    const user = structuredClone(full);
    const config = checkConfig(user, configDir);
    expect(Object.isFrozen(user.clients[0])).toBe(false);
    user.clients[0]!.allowedScopes.push('changed');
    expect(config.clients[0]!.allowedScopes).toEqual(['api1.read']);
  });
});
