import { describe, expect, it } from 'vitest';
import plugin from '../../../plugins/private-key-jwt/index.js';
import { readOptions } from '../../../plugins/private-key-jwt/options.js';
import { JWT_BEARER, makeDeps } from './helpers.js';
import { startServer } from '../../support/server.js';
import { BootError } from '../../../src/config/boot-error.js';

describe('private-key-jwt plugin', () => {
  it('registers one parser and one validator under its folder name', async () => {
    expect(plugin.name).toBe('private-key-jwt');
    expect(plugin.secretParsers).toHaveLength(1);
    expect(plugin.secretValidators).toHaveLength(1);
    expect(plugin).not.toHaveProperty('extensionGrants');
    const deps = makeDeps();
    const parser = await plugin.secretParsers![0]!(deps);
    const validator = await plugin.secretValidators![0]!(deps);
    expect(parser.authenticationMethod).toBe('private_key_jwt');
    expect(validator.parsedSecretTypes).toEqual([JWT_BEARER]);
    expect(validator.secretTypes).toEqual(['X509CertificateBase64', 'JsonWebKey']);
  });

  it('declares its options parser once; a bad option names the field', () => {
    expect(plugin.options).toBe(readOptions);
    expect(() => plugin.options!({ clockSkew: -5 })).toThrow(expect.objectContaining({ field: 'clockSkew', problem: 'expected a non-negative number of seconds, found -5' }));
  });
});

describe('private-key-jwt options at start-up', () => {
  it('stops start-up on a bad option, naming plugins.private-key-jwt.<field>', async () => {
    const err = await startServer({ plugins: { 'private-key-jwt': { clockSkew: -5 } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BootError);
    expect(err).toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/^plugins\.private-key-jwt\.clockSkew: expected a non-negative number of seconds, found -5 \(plugin "private-key-jwt", /),
    });
  });
});
