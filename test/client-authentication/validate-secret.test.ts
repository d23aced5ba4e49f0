/**
 * Step 2, validate, with plain validators: expired secrets are dropped before any validator sees
 * one, a holder's several secrets go to a validator together, any one validator accepting is
 * enough, and a refusal says in the log only what each validator found, and whether the
 * credential was an expired secret (shared secrets only: an assertion's `jti` is not spent on it).
 */
import { describe, expect, it } from 'vitest';
import { indexSecretValidators } from '../../src/client-authentication/secret-validator-index.js';
import type { Attempt, FoundCredentials } from '../../src/client-authentication/types.js';
import { createSecretValidation } from '../../src/client-authentication/validate-secret.js';
import { OAuthError } from '../../src/oauth/errors.js';
import type { Secret, SecretHolder } from '../../src/sdk/index.js';
import { client, NOW, secret, source, validator } from './fakes.js';

const clock = { now: () => NOW };
const found = (credential: string, type = 'SharedSecret', method = 'client_secret_post'): FoundCredentials =>
  ({ parsed: { id: 'web', credential, type }, method, fromConnection: false });

function setup(...validators: ReturnType<typeof validator>[]) {
  return createSecretValidation(indexSecretValidators(validators), clock);
}

async function judge(validate: ReturnType<typeof setup>, credential: string, secrets: Secret[], type = 'SharedSecret') {
  const holder: SecretHolder = { kind: 'client', client: client('web', secrets) };
  const attempt: Attempt = {};
  const err = await validate(found(credential, type), holder, secrets, source(), attempt, 'Client authentication failed.').then(() => undefined, (e: unknown) => e as OAuthError);
  return { err, attempt };
}

describe('validating a secret', () => {
  it('accepts any of several unexpired secrets, each validator seeing only its own type and none expired', async () => {
    const shared = validator('SharedSecret', 'SharedSecret');
    const validate = setup(shared);
    const secrets = [secret('SharedSecret', 'old', NOW - 1), secret('SharedSecret', 'current', NOW + 1000), secret('SharedSecret', 'next'), secret('JsonWebKey', '{}')];
    const { err } = await judge(validate, 'next', secrets);
    expect(err).toBeUndefined();
    expect(shared.seen).toEqual([['current', 'next']]);
  });

  it('treats a secret as expired from its expiry instant on', async () => {
    const { err } = await judge(setup(validator('SharedSecret', 'SharedSecret')), 'current', [secret('SharedSecret', 'current', NOW)]);
    expect(err?.code).toBe('invalid_client');
  });

  it('accepts when a second validator of the same parsed type accepts after the first refused', async () => {
    const validate = setup(validator('SharedSecret', 'SharedSecret'), validator('SharedSecret', 'LegacySecret'));
    const { err } = await judge(validate, 'legacy', [secret('SharedSecret', 'modern'), secret('LegacySecret', 'legacy')]);
    expect(err).toBeUndefined();
  });

  it("refuses with invalid_client and every validator's reason in the log, the same text to the caller", async () => {
    const validate = setup(validator('SharedSecret', 'SharedSecret'), validator('SharedSecret', 'LegacySecret'));
    const { err, attempt } = await judge(validate, 'wrong', [secret('SharedSecret', 'modern'), secret('LegacySecret', 'legacy')]);
    expect(err?.toJSON()).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    expect(err?.logDetail).toBe('client_secret_post for "web": SharedSecret: no match; LegacySecret: no match');
    expect(attempt.expiredSecret).toBeUndefined();
  });

  it('says when the holder has no secret of a fitting type, and when it has only expired ones', async () => {
    const validate = setup(validator('SharedSecret', 'SharedSecret'));
    expect((await judge(validate, 'x', [secret('JsonWebKey', '{}')])).err?.logDetail).toBe('client_secret_post for "web": no secret of a fitting type');
    expect((await judge(validate, 'x', [secret('SharedSecret', 'y', NOW - 1)])).err?.logDetail).toBe('client_secret_post for "web": no unexpired secret of a fitting type');
  });

  it('marks an expired shared secret presented, for the alarm of a missed rotation', async () => {
    const { err, attempt } = await judge(setup(validator('SharedSecret', 'SharedSecret')), 'old', [secret('SharedSecret', 'old', NOW - 1), secret('SharedSecret', 'new')]);
    expect(err?.logDetail).toBe('client_secret_post for "web": SharedSecret: no match; the secret presented is one that has expired');
    expect(attempt.expiredSecret).toBe(true);
  });

  it('does not judge other credentials against expired secrets: an assertion would spend its jti on a refusal (RFC 7523 §3)', async () => {
    const jwk = validator('JwtBearer', 'JsonWebKey');
    const { attempt } = await judge(setup(jwk), 'old-key', [secret('JsonWebKey', 'old-key', NOW - 1)], 'JwtBearer');
    expect(jwk.seen).toEqual([]);
    expect(attempt.expiredSecret).toBeUndefined();
  });

  it("keeps what a validator observed of the credential (the assertion's audience form), refused or not", async () => {
    const { attempt } = await judge(setup(validator('SharedSecret', 'SharedSecret', { observe: true })), 'wrong', [secret('SharedSecret', 'right')]);
    expect(attempt.observations).toEqual({ assertionAudience: 'issuer' });
  });
});
