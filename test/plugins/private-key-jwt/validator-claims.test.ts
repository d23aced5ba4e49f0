/** Claim rules: iss, sub, exp, nbf, iat, lifetime, jti presence. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { JWTPayload } from 'jose';
import { createAssertionValidator } from '../../../plugins/private-key-jwt/assertion-validator.js';
import type { Client } from 'svc/sdk';
import { NOW_S, certificateSecret, claimsFor, contextFor, makeClient, makeDeps, makeKey, sign, type TestKey } from './helpers.js';

let key: TestKey;
let app: Client;
beforeAll(async () => {
  key = await makeKey('P-256');
  app = makeClient('app', [await certificateSecret(key)]);
});

async function validate(claims: JWTPayload, pluginOptions: Record<string, unknown> = {}) {
  const validator = createAssertionValidator(makeDeps({ clients: [app], pluginOptions }));
  return validator.validate(contextFor(app, await sign(key, 'ES256', claims)));
}

const ok = { success: true };
const fail = (reason: string) => ({ success: false, reason });

describe('iss and sub', () => {
  it('rejects iss other than the client id', async () => {
    expect(await validate(claimsFor('app', { iss: 'someone' }))).toMatchObject(fail('iss "someone" is not the client id "app"'));
    expect(await validate(claimsFor('app', { iss: undefined }))).toMatchObject(fail('iss undefined is not the client id "app"'));
  });

  it('rejects sub of another client, even signed with this client\'s key', async () => {
    expect(await validate(claimsFor('app', { sub: 'other' }))).toMatchObject(fail('sub "other" is not the client id "app"'));
  });
});

describe('exp', () => {
  it('is required', async () => {
    expect(await validate(claimsFor('app', { exp: undefined }))).toMatchObject(fail('exp is missing'));
    expect(await validate(claimsFor('app', { exp: String(NOW_S + 60) }))).toMatchObject(fail(`exp is not a NumericDate: "${NOW_S + 60}"`));
  });

  it('rejects an expired assertion, beyond the clock skew', async () => {
    expect(await validate(claimsFor('app', { iat: NOW_S - 400, exp: NOW_S - 61 }))).toMatchObject(fail('expired at 2027-01-15T11:58:59.000Z (clock skew 60s)'));
    expect(await validate(claimsFor('app', { iat: NOW_S - 400, exp: NOW_S - 60 }))).toMatchObject(fail('expired at 2027-01-15T11:59:00.000Z (clock skew 60s)'));
    expect(await validate(claimsFor('app', { iat: NOW_S - 400, exp: NOW_S - 59 }))).toMatchObject(ok);
  });

  it('follows the clockSkew option', async () => {
    expect(await validate(claimsFor('app', { exp: NOW_S }), { clockSkew: 0 })).toMatchObject(fail('expired at 2027-01-15T12:00:00.000Z (clock skew 0s)'));
    expect(await validate(claimsFor('app', { iat: NOW_S - 600, exp: NOW_S - 200 }), { clockSkew: 300 })).toMatchObject(ok);
  });
});

describe('nbf and iat', () => {
  it('rejects nbf in the future', async () => {
    expect(await validate(claimsFor('app', { nbf: NOW_S + 61 }))).toMatchObject(fail('not valid before 2027-01-15T12:01:01.000Z (nbf; clock skew 60s)'));
    expect(await validate(claimsFor('app', { nbf: NOW_S + 60 }))).toMatchObject(ok);
  });

  it('rejects iat in the future', async () => {
    expect(await validate(claimsFor('app', { iat: NOW_S + 120 }))).toMatchObject(fail('issued in the future at 2027-01-15T12:02:00.000Z (iat; clock skew 60s)'));
    expect(await validate(claimsFor('app', { iat: NOW_S + 30 }))).toMatchObject(ok);
  });

  it('rejects non-numeric nbf and iat', async () => {
    expect(await validate(claimsFor('app', { nbf: 'soon' }))).toMatchObject(fail('nbf is not a NumericDate: "soon"'));
    expect(await validate(claimsFor('app', { iat: null }))).toMatchObject(fail('iat is not a NumericDate: null'));
  });
});

describe('lifetime', () => {
  it('accepts the one-hour assertions of common libraries', async () => {
    expect(await validate(claimsFor('app', { iat: NOW_S, exp: NOW_S + 3600 }))).toMatchObject(ok);
    expect(await validate(claimsFor('app', { iat: NOW_S, exp: NOW_S + 3660 }))).toMatchObject(ok);
  });

  it('rejects exp - iat beyond maxLifetime + clock skew', async () => {
    expect(await validate(claimsFor('app', { iat: NOW_S, exp: NOW_S + 3661 }))).toMatchObject(fail('lifetime of 3661s (exp - iat) exceeds maxLifetime 3600s + clock skew 60s'),
    );
  });

  it('measures from now when iat is absent', async () => {
    expect(await validate(claimsFor('app', { iat: undefined, exp: NOW_S + 3700 }))).toMatchObject(fail('lifetime of 3700s (exp - now) exceeds maxLifetime 3600s + clock skew 60s'),
    );
    expect(await validate(claimsFor('app', { iat: undefined, exp: NOW_S + 3600 }))).toMatchObject(ok);
  });

  it('follows the maxLifetime option', async () => {
    expect(await validate(claimsFor('app', { exp: NOW_S + 361 }), { maxLifetime: 300 })).toMatchObject(fail('lifetime of 361s (exp - iat) exceeds maxLifetime 300s + clock skew 60s'),
    );
  });
});

describe('jti', () => {
  it('is required, as a non-empty string', async () => {
    expect(await validate(claimsFor('app', { jti: undefined }))).toMatchObject(fail('jti is missing'));
    expect(await validate(claimsFor('app', { jti: '' }))).toMatchObject(fail('jti is not a non-empty string: ""'));
    expect(await validate(claimsFor('app', { jti: 42 }))).toMatchObject(fail('jti is not a non-empty string: 42'));
  });
});
