/**
 * The composition root (the design card: "a Koa host uses an awilix container"): one container
 * per app, strict mode on, every host service a singleton made there, and the services that
 * need the plugins' contributions refused until those are registered.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { AwilixResolutionError } from 'awilix';
import { describe, expect, it } from 'vitest';
import { createServiceContainer, registerKeyRing, registerPageSecret, registerPluginContributions } from '../../src/app/container.js';
import { checkConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log/logger.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createKeyRing } from '../../src/oauth/keys/key-ring.js';

const config = checkConfig({ issuer: 'https://svc.example', identityResources: [{ name: 'openid', claims: ['sub'] }], clients: [{ clientId: 'app', clientSecrets: [], requireClientSecret: false, allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://app.example/cb'] }] }, process.cwd());
const clock = { now: () => Date.now() };
const quiet = new Writable({ write: (_chunk, _enc, done) => done() });

function newContainer() {
  const store = createMemoryStore(clock);
  return createServiceContainer({ config, rootLogger: createLogger('error', quiet), clock, store });
}

describe('the service container', () => {
  it('is strict and makes each host service once', async () => {
    const container = newContainer();
    expect(container.options.strict).toBe(true);
    const { logger, store } = container.cradle;
    registerKeyRing(container, await createKeyRing({ config, store, clock: { now: () => Date.now() }, logger }));
    registerPageSecret(container, randomBytes(32));
    const registrar = container.cradle.pluginRegistrar;
    await registrar.registerPlugin(container.cradle.standardGrants, '(built-in)');
    const registry = registerPluginContributions(container);
    expect([...registry.grants.keys()]).toContain('authorization_code');
    for (const name of ['events', 'tokenValidator', 'refreshTokens', 'idTokens', 'tokenIssuer', 'clientAuthenticator', 'scopeCatalog', 'passwordThrottle', 'signInPages', 'router'] as const) {
      expect(container.resolve(name), name).toBe(container.resolve(name));
    }
    expect(container.cradle.router.stack.map((layer) => layer.path)).toContain('/connect/token');
    container.cradle.keyRing.stop();
  });

  it('refuses to make a service that needs the user store before the plugins chose it', async () => {
    const container = newContainer();
    const { logger, store } = container.cradle;
    registerKeyRing(container, await createKeyRing({ config, store, clock, logger }));
    expect(() => container.resolve('tokenIssuer')).toThrow(AwilixResolutionError);
    expect(() => container.resolve('tokenIssuer')).toThrow(/resourceOwnerValidator/);
    container.cradle.keyRing.stop();
  });
});
