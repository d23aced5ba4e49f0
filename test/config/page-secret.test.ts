/**
 * `pageSecret` is the root secret of every page and of the DPoP nonces; it was called
 * `deviceFlow.cookieSecret`, a name that said less than it does (issue 32). The old name is
 * still read, with one deprecation line for the start-up log.
 */
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load.js';
import { validateUserConfig } from '../../src/config/validate.js';

const secret = 'a page secret of at least thirty-two characters';

describe('pageSecret', () => {
  it('is read under its name, with nothing to say', () => {
    const config = checkConfig({ pageSecret: secret }, process.cwd());
    expect(config.pageSecret).toBe(secret);
    expect(config.deprecations).toEqual([]);
  });

  it('is read under its old name deviceFlow.cookieSecret, with one deprecation line', () => {
    const config = checkConfig({ deviceFlow: { cookieSecret: secret, maxFailedAttempts: 3 } }, process.cwd());
    expect(config.pageSecret).toBe(secret);
    expect(config.deviceFlow).toMatchObject({ maxFailedAttempts: 3 });
    expect(config.deviceFlow).not.toHaveProperty('cookieSecret');
    expect(config.deprecations).toEqual([
      'deviceFlow.cookieSecret is now called pageSecret (it keys every page and the DPoP nonces, not only the device flow): rename it; the old name is still read',
    ]);
    expect(config.deprecations.join()).not.toContain(secret);
  });

  it('is undefined when neither is set (a random secret is then kept in the store)', () => {
    expect(checkConfig({}, process.cwd())).toMatchObject({ pageSecret: undefined, deprecations: [] });
  });

  it('names a short secret under either name, and both names at once', () => {
    expect(validateUserConfig({ pageSecret: 'short' })).toEqual(['pageSecret: expected a string of at least 32 characters']);
    expect(validateUserConfig({ deviceFlow: { cookieSecret: 'short' } })).toEqual(['deviceFlow.cookieSecret: expected a string of at least 32 characters']);
    expect(validateUserConfig({ pageSecret: secret, deviceFlow: { cookieSecret: secret } })).toEqual([
      'deviceFlow.cookieSecret: the old name of pageSecret: set pageSecret only',
    ]);
  });
});
