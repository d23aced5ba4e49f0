/** Validation and defaults of the exhaustion limits: each problem names its field. */
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load.js';
import { validateUserConfig } from '../../src/config/validate.js';

describe('limits against exhaustion', () => {
  it('have generous defaults, on without any config', () => {
    const config = checkConfig({}, process.cwd());
    expect(config.passwordThrottle).toEqual({ pairThreshold: 5, userThreshold: 20, addressThreshold: 50, maxDelay: 300, window: 900 });
    expect(config.introspectionLimit).toEqual({ maxInactive: 6000, window: 60 });
    expect(config.deviceFlow).toMatchObject({ maxAuthorizationsPerAddress: 60, maxAuthorizationsPerClient: 6000, authorizationsWindow: 60 });
    expect(config.connections).toEqual({ firstByteTimeout: 5000, headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5000 });
  });

  it('take partial settings over the defaults', () => {
    const config = checkConfig({ passwordThrottle: { userThreshold: 7 }, connections: { firstByteTimeout: 2000 } }, process.cwd());
    expect(config.passwordThrottle.userThreshold).toBe(7);
    expect(config.passwordThrottle.pairThreshold).toBe(5);
    expect(config.connections).toEqual({ firstByteTimeout: 2000, headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5000 });
  });

  it('name the field of each bad value', () => {
    expect(validateUserConfig({
      passwordThrottle: { userThreshold: 0, colour: 1 },
      introspectionLimit: { maxInactive: 'many' },
      deviceFlow: { maxAuthorizationsPerAddress: 1.5 },
      connections: { keepAliveTimeout: 10 },
    })).toEqual([
      'deviceFlow.maxAuthorizationsPerAddress: expected a whole number from 1 to 9007199254740991, got number 1.5',
      'passwordThrottle.colour: unknown field (known: pairThreshold, userThreshold, addressThreshold, maxDelay, window)',
      'passwordThrottle.userThreshold: expected a whole number from 1 to 9007199254740991, got number 0',
      'introspectionLimit.maxInactive: expected a whole number from 1 to 9007199254740991, got "many"',
      'connections.keepAliveTimeout: expected a whole number from 100 to 3600000, got number 10',
    ]);
    expect(validateUserConfig({ introspectionLimit: 5 })).toEqual(['introspectionLimit: expected an object, got number 5']);
  });

  it('interactionLimit: defaults, partial settings and its bad values', () => {
    expect(checkConfig({}, process.cwd()).interactionLimit).toEqual({ maxPerAddress: 60, maxTotal: 3000, window: 60 });
    expect(checkConfig({ interactionLimit: { maxPerAddress: 10 } }, process.cwd()).interactionLimit).toEqual({ maxPerAddress: 10, maxTotal: 3000, window: 60 });
    expect(validateUserConfig({ interactionLimit: { maxTotal: 0, perAddress: 5 } })).toEqual([
      'interactionLimit.perAddress: unknown field (did you mean "maxPerAddress"?) (known: maxPerAddress, maxTotal, window)',
      'interactionLimit.maxTotal: expected a whole number from 1 to 9007199254740991, got number 0',
    ]);
  });

  it('keep the connection bounds in order', () => {
    expect(validateUserConfig({ connections: { headersTimeout: 40_000 } })).toEqual([
      'connections.headersTimeout: must not exceed connections.requestTimeout (30000), got 40000',
    ]);
    expect(validateUserConfig({ connections: { firstByteTimeout: 8000, headersTimeout: 6000 } })).toEqual([
      'connections.firstByteTimeout: must not exceed connections.headersTimeout (6000), got 8000',
    ]);
  });
});

describe('trusted proxies and counters', () => {
  it('default to no trusted proxy and counters in memory', () => {
    const config = checkConfig({}, process.cwd());
    expect(config.trustedProxies).toEqual([]);
    expect(config.forwardedHeader).toBe('x-forwarded-for');
    expect(config.counters).toBe('memory');
    expect(config.counterKeyPrefix).toBe('svc:');
  });

  it('name the field of each bad value', () => {
    expect(validateUserConfig({
      trustedProxies: ['10.0.0.0/8', 'fd00::/8', '::1', '10.0.0.0/33', 'proxy.internal', 7],
      forwardedHeader: 'x-real-ip',
      counters: 'memcached://secret@cache',
    })).toEqual([
      'trustedProxies[3]: expected an IPv4 or IPv6 address or CIDR range such as "10.0.0.0/8" or "fd00::/8", got "10.0.0.0/33"',
      'trustedProxies[4]: expected an IPv4 or IPv6 address or CIDR range such as "10.0.0.0/8" or "fd00::/8", got "proxy.internal"',
      'trustedProxies[5]: expected a non-empty string, got number 7',
      'forwardedHeader: unknown value "x-real-ip" (allowed: x-forwarded-for, forwarded)',
      'counters: expected "memory", "store" or "redis://host:port", got a value starting with "memcached:"',
    ]);
  });

  it('refuse counters in the store unless the store is PostgreSQL, without echoing a password', () => {
    expect(validateUserConfig({ counters: 'store', store: 'sqlite:./x.db' })).toEqual([
      'counters: "store" keeps the counters in PostgreSQL and needs a "postgres://..." store, got store "sqlite:./x.db"; use "memory" or "redis://..."',
    ]);
    expect(validateUserConfig({ counters: 'store', store: 'postgres://svc:pw@db/svc' })).toEqual([]);
    expect(validateUserConfig({ counters: 'redis://:pw@127.0.0.1:6379/2' })).toEqual([]);
  });
});
