/**
 * Type-level tests of the public plugin API (`svc/sdk`): what a plugin author can and cannot
 * write. `npm test` type-checks this file (tsc) before vitest runs it; `@ts-expect-error` fails
 * the type check when the line it marks stops being an error.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  definePlugin, InvalidGrant, OptionsError, tokenRequestErrorCodes,
  type ExtensionGrantValidator, type GrantSubject, type GrantSuccess, type OAuthError, type ParsedSecret, type Plugin,
  type PluginDependencies, type PluginStore, type TokenRequestErrorCode, type ClientCertificate, type CredentialSource, type SecretParser,
} from 'svc/sdk';
import type { X509Certificate } from 'node:crypto';
import type { Client, ResolvedConfig } from '../../src/config/schema.js';
import type { Client as SdkClient } from 'svc/sdk';

describe('svc/sdk types', () => {
  it('infers a plugin\'s options type from its parser, for every factory', () => {
    definePlugin({
      name: 'typed',
      options: (raw) => ({ word: String(raw.word ?? 'please'), times: 3 }),
      extensionGrants: [
        ({ options }) => {
          expectTypeOf(options).toEqualTypeOf<{ word: string; times: number }>();
          return { grantType: 'urn:x', validate() {} };
        },
      ],
    });
  });

  it('makes the subject kind explicit: a user has an authTime, a client has none', () => {
    expectTypeOf<Extract<GrantSubject, { kind: 'user' }>>().toHaveProperty('authTime').toEqualTypeOf<number>();
    expectTypeOf<Extract<GrantSubject, { kind: 'client' }>>().not.toHaveProperty('authTime');
    // @ts-expect-error a user's subject needs its authTime
    const user: GrantSubject = { kind: 'user', id: 'alice' };
    // @ts-expect-error a subject is no longer a bare string
    const bare: GrantSuccess = { subject: 'alice' };
    void user;
    void bare;
  });

  it('has one error channel: a grant refuses by throwing, its result is a success or nothing', () => {
    expectTypeOf<Parameters<ExtensionGrantValidator['validate']>[0]['result']>().toEqualTypeOf<GrantSuccess | undefined>();
    expectTypeOf<ReturnType<NonNullable<ExtensionGrantValidator['spent']>>>().toEqualTypeOf<Promise<OAuthError>>();
    expectTypeOf(new InvalidGrant()).toMatchTypeOf<OAuthError>();
    expectTypeOf<(typeof tokenRequestErrorCodes)[number]>().toEqualTypeOf<TokenRequestErrorCode>();
  });

  it('hands secret parsers the TLS client certificate as Node\'s X509Certificate, parsed by the host', () => {
    expectTypeOf<CredentialSource['clientCertificate']>().toEqualTypeOf<ClientCertificate | undefined>();
    expectTypeOf<ClientCertificate['certificate']>().toEqualTypeOf<X509Certificate>();
    expectTypeOf<ClientCertificate['source']>().toEqualTypeOf<'tls' | 'proxy'>();
    expectTypeOf<SecretParser['fromConnection']>().toEqualTypeOf<boolean | undefined>();
  });

  it('hands plugins a narrow store and no host service', () => {
    expectTypeOf<PluginDependencies['store']>().toEqualTypeOf<PluginStore>();
    expectTypeOf<keyof PluginStore>().toEqualTypeOf<'add' | 'get' | 'consume' | 'remove'>();
    expectTypeOf<PluginDependencies>().not.toHaveProperty('keyRing');
    expectTypeOf<PluginDependencies>().not.toHaveProperty('tokenIssuer');
    expectTypeOf<PluginDependencies['config']>().not.toHaveProperty('users');
  });

  it('lets a parsed secret carry what the parser decoded', () => {
    expectTypeOf<ParsedSecret>().toHaveProperty('decoded').toEqualTypeOf<unknown>();
  });

  it("keeps the host's resolved model assignable to the SDK's (one definition)", () => {
    expectTypeOf<Client>().toEqualTypeOf<SdkClient>();
    expectTypeOf<ResolvedConfig>().toMatchTypeOf<PluginDependencies['config']>();
  });

  it('names an option field in OptionsError', () => {
    expectTypeOf(new OptionsError('clockSkew', 'expected a number')).toHaveProperty('field').toEqualTypeOf<string>();
    expectTypeOf<Plugin['options']>().toEqualTypeOf<((raw: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>) | undefined>();
  });
});
