/** RFC 10070 audience rules: strict by default, compat by option or client property, typ forces strict. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { JWTPayload } from 'jose';
import { createAssertionValidator } from '../../../plugins/private-key-jwt/assertion-validator.js';
import { ISSUER, certificateSecret, claimsFor, contextFor, makeClient, makeDeps, makeKey, sign, urls, type TestKey } from './helpers.js';

let key: TestKey;
let secretValue: Awaited<ReturnType<typeof certificateSecret>>;
beforeAll(async () => {
  key = await makeKey('Ed25519');
  secretValue = await certificateSecret(key);
});

interface Case {
  aud: unknown;
  option?: 'strict' | 'compat';
  property?: string;
  typ?: string;
  endpoint?: string;
}

async function validate({ aud, option, property, typ, endpoint = 'token' }: Case) {
  const client = makeClient('app', [secretValue], property === undefined ? {} : { 'privateKeyJwt.audience': property });
  const validator = createAssertionValidator(makeDeps({ clients: [client], pluginOptions: option === undefined ? {} : { audience: option } }));
  const token = await sign(key, 'EdDSA', claimsFor('app', { aud } as JWTPayload), typ === undefined ? {} : { typ });
  return validator.validate(contextFor(client, token, endpoint));
}

const ok = { success: true };
const fail = (reason: string) => ({ success: false, reason });
const other = 'https://other.example';

describe('strict (default)', () => {
  it('accepts the issuer as the single audience', async () => {
    expect(await validate({ aud: ISSUER })).toMatchObject(ok);
    expect(await validate({ aud: [ISSUER] })).toMatchObject(ok);
  });

  it('rejects another audience', async () => {
    expect(await validate({ aud: other })).toMatchObject(fail(`aud "${other}" is not the issuer identifier (strict audience, by plugin option audience)`));
    expect(await validate({ aud: `${ISSUER}/` })).toMatchObject(fail(`aud "${ISSUER}/" is not the issuer identifier (strict audience, by plugin option audience)`));
  });

  it('rejects an array holding the issuer and another value', async () => {
    expect(await validate({ aud: [ISSUER, other] })).toMatchObject(fail(`aud ["${ISSUER}","${other}"] is not a single value (strict audience, by plugin option audience)`),
    );
  });

  it('rejects a missing or empty audience', async () => {
    expect(await validate({ aud: undefined })).toMatchObject(fail('aud undefined is not a single value (strict audience, by plugin option audience)'));
    expect(await validate({ aud: [] })).toMatchObject(fail('aud [] is not a single value (strict audience, by plugin option audience)'));
  });

  it('rejects the token endpoint URL', async () => {
    expect(await validate({ aud: urls.token })).toMatchObject(fail(`aud "${urls.token}" is not the issuer identifier (strict audience, by plugin option audience)`),
    );
  });
});

describe('compat', () => {
  const notAccepted = 'is not the issuer identifier, token endpoint or called endpoint URL';

  it('accepts the token endpoint URL when the plugin option says compat', async () => {
    expect(await validate({ aud: urls.token, option: 'compat' })).toMatchObject(ok);
    expect(await validate({ aud: [urls.token], option: 'compat' })).toMatchObject(ok);
    expect(await validate({ aud: ISSUER, option: 'compat' })).toMatchObject(ok);
  });

  it('accepts the token endpoint URL when the client property says compat', async () => {
    expect(await validate({ aud: urls.token, property: 'compat' })).toMatchObject(ok);
  });

  it('lets a client property strict override the global compat', async () => {
    expect(await validate({ aud: urls.token, option: 'compat', property: 'strict' })).toMatchObject(fail(`aud "${urls.token}" is not the issuer identifier (strict audience, by client property privateKeyJwt.audience)`),
    );
  });

  it('accepts the URL of the endpoint being called, and not of another', async () => {
    expect(await validate({ aud: urls.introspection, option: 'compat', endpoint: 'introspection' })).toMatchObject(ok);
    expect(await validate({ aud: urls.introspection, option: 'compat', endpoint: 'token' })).toMatchObject(fail(`aud "${urls.introspection}" ${notAccepted} (compat audience, by plugin option audience)`),
    );
  });

  it('still requires a single value', async () => {
    expect(await validate({ aud: [ISSUER, urls.token], option: 'compat' })).toMatchObject(fail(`aud ["${ISSUER}","${urls.token}"] is not a single value (compat audience, by plugin option audience)`),
    );
  });

  it('still rejects other audiences', async () => {
    expect(await validate({ aud: other, property: 'compat' })).toMatchObject(fail(`aud "${other}" ${notAccepted} (compat audience, by client property privateKeyJwt.audience)`),
    );
  });
});

describe('typ client-authentication+jwt', () => {
  it('is always strict', async () => {
    const strict = (aud: string) => fail(`aud "${aud}" is not the issuer identifier (strict audience, by typ client-authentication+jwt)`);
    expect(await validate({ aud: urls.token, option: 'compat', typ: 'client-authentication+jwt' })).toMatchObject(strict(urls.token));
    expect(await validate({ aud: urls.token, property: 'compat', typ: 'client-authentication+jwt' })).toMatchObject(strict(urls.token));
    expect(await validate({ aud: urls.token, option: 'compat', typ: 'application/Client-Authentication+JWT' })).toMatchObject(strict(urls.token));
  });

  it('accepts the issuer', async () => {
    expect(await validate({ aud: ISSUER, option: 'compat', typ: 'client-authentication+jwt' })).toMatchObject(ok);
  });

  it('other typ values leave the mode alone', async () => {
    expect(await validate({ aud: urls.token, option: 'compat', typ: 'JWT' })).toMatchObject(ok);
  });
});

describe('the audience form, reported for the metrics', () => {
  it('names the form of an assertion whose signature verified, accepted or not', async () => {
    expect(await validate({ aud: ISSUER })).toEqual({ success: true, assertionAudience: 'issuer' });
    expect(await validate({ aud: [ISSUER] })).toEqual({ success: true, assertionAudience: 'issuer' });
    expect(await validate({ aud: urls.token, property: 'compat' })).toEqual({ success: true, assertionAudience: 'token_endpoint' });
    expect(await validate({ aud: urls.token })).toEqual({
      success: false,
      reason: `aud "${urls.token}" is not the issuer identifier (strict audience, by plugin option audience)`,
      assertionAudience: 'token_endpoint',
    });
    expect(await validate({ aud: urls.introspection, option: 'compat', endpoint: 'introspection' })).toMatchObject({ success: true, assertionAudience: 'other' });
    expect(await validate({ aud: [ISSUER, urls.token] })).toMatchObject({ success: false, assertionAudience: 'other' });
  });

  it('is not reported when the signature does not verify', async () => {
    const client = makeClient('app', [secretValue]);
    const validator = createAssertionValidator(makeDeps({ clients: [client] }));
    const forged = await sign(await makeKey('Ed25519'), 'EdDSA', claimsFor('app', { aud: ISSUER }));
    expect(await validator.validate(contextFor(client, forged))).toEqual({
      success: false,
      reason: 'signature does not verify with the candidate key',
    });
  });
});

describe('a client under the FAPI 2.0 profile (SP §5.3.2.1: the issuer only)', () => {
  async function validateFapi(aud: unknown, fapi2: 'security' | 'message-signing' | 'off', property?: string) {
    const client = { ...makeClient('app', [secretValue], property === undefined ? {} : { 'privateKeyJwt.audience': property }), fapi2 };
    const validator = createAssertionValidator(makeDeps({ clients: [client], pluginOptions: { audience: 'compat' } }));
    return validator.validate(contextFor(client, await sign(key, 'EdDSA', claimsFor('app', { aud } as JWTPayload)), 'token'));
  }

  it('refuses the token endpoint URL, whatever the plugin option or the client property say', async () => {
    expect(await validateFapi(urls.token, 'security')).toMatchObject(fail(`aud "${urls.token}" is not the issuer identifier (strict audience, by FAPI 2.0 (client fapi2 security))`));
    expect(await validateFapi(urls.token, 'message-signing', 'compat')).toMatchObject({ success: false });
    expect(await validateFapi(ISSUER, 'security')).toMatchObject(ok);
  });

  it('leaves a client with fapi2 "off" to the plugin option', async () => {
    expect(await validateFapi(urls.token, 'off')).toMatchObject(ok);
  });
});
