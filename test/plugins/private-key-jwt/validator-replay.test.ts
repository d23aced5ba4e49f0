/** jti single use: recorded in the store last, only for assertions that passed every other check. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createAssertionValidator } from '../../../plugins/private-key-jwt/assertion-validator.js';
import type { Client, SecretValidator } from 'svc/sdk';
import { StoreUnavailableError } from '../../../src/store/store.js';
import { NOW, NOW_S, claimsFor, contextFor, jwkSecret, makeClient, makeDeps, makeKey, sign, type FakeStore, type TestKey } from './helpers.js';

let key: TestKey;
let forger: TestKey;
let app: Client;
let app2: Client;
let validator: SecretValidator;
let store: FakeStore;

beforeAll(async () => {
  [key, forger] = await Promise.all([makeKey('P-256'), makeKey('P-256')]);
  app = makeClient('app', [jwkSecret(key)]);
  app2 = makeClient('app2', [jwkSecret(key)]);
});

async function fresh() {
  const deps = makeDeps({ clients: [app, app2] });
  store = deps.store;
  validator = createAssertionValidator(deps);
}

describe('jti', () => {
  it('records the jti until the assertion expires plus the clock skew', async () => {
    await fresh();
    const token = await sign(key, 'ES256', claimsFor('app', { jti: 'one' }));
    expect(await validator.validate(contextFor(app, token))).toMatchObject({ success: true });
    expect([...store.grants.values()]).toEqual([
      {
        key: 'jti:app:one',
        type: 'assertion_jti',
        clientId: 'app',
        subjectId: undefined,
        sessionId: undefined,
        createdAt: NOW,
        expiresAt: (NOW_S + 300 + 60) * 1000,
        consumedAt: undefined,
        data: '{}',
      },
    ]);
  });

  it('rejects a reused jti', async () => {
    await fresh();
    const token = await sign(key, 'ES256', claimsFor('app', { jti: 'once' }));
    expect(await validator.validate(contextFor(app, token))).toMatchObject({ success: true });
    expect(await validator.validate(contextFor(app, token))).toMatchObject({ success: false, reason: 'jti "once" was already used (replay)' });
    const another = await sign(key, 'ES256', claimsFor('app', { jti: 'once', exp: NOW_S + 100 }));
    expect(await validator.validate(contextFor(app, another))).toMatchObject({ success: false, reason: 'jti "once" was already used (replay)' });
  });

  it('keeps jtis apart per client', async () => {
    await fresh();
    expect(await validator.validate(contextFor(app, await sign(key, 'ES256', claimsFor('app', { jti: 'same' }))))).toMatchObject({ success: true });
    expect(await validator.validate(contextFor(app2, await sign(key, 'ES256', claimsFor('app2', { jti: 'same' }))))).toMatchObject({ success: true });
    expect([...store.grants.keys()]).toEqual(['jti:app:same', 'jti:app2:same']);
  });

  it('is not burnt by a forged or invalid assertion', async () => {
    await fresh();
    const forged = await sign(forger, 'ES256', claimsFor('app', { jti: 'victim' }));
    expect(await validator.validate(contextFor(app, forged))).toMatchObject({ success: false, reason: 'signature does not verify with the candidate key' });
    const wrongAud = await sign(key, 'ES256', claimsFor('app', { jti: 'victim', aud: 'https://elsewhere.example' }));
    expect((await validator.validate(contextFor(app, wrongAud))).success).toBe(false);
    const expired = await sign(key, 'ES256', claimsFor('app', { jti: 'victim', iat: NOW_S - 900, exp: NOW_S - 600 }));
    expect((await validator.validate(contextFor(app, expired))).success).toBe(false);
    expect(store.grants.size).toBe(0);
    const genuine = await sign(key, 'ES256', claimsFor('app', { jti: 'victim' }));
    expect(await validator.validate(contextFor(app, genuine))).toMatchObject({ success: true });
  });

  it('lets a store failure propagate instead of answering', async () => {
    await fresh();
    store.failWith = new StoreUnavailableError('down');
    const token = await sign(key, 'ES256', claimsFor('app'));
    await expect(validator.validate(contextFor(app, token))).rejects.toThrow(StoreUnavailableError);
  });
});
