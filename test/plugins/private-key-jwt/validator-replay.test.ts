/** jti single use: recorded in the store last, only for assertions that passed every other check. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createAssertionValidator } from '../../../plugins/private-key-jwt/assertion-validator.js';
import type { Client, SecretValidator } from 'svc/sdk';
import { StoreUnavailableError } from '../../../src/store/store.js';
import { NOW, NOW_S, claimsFor, contextFor, jtiKey, jwkSecret, makeClient, makeDeps, makeKey, sign, type FakeStore, type TestKey } from './helpers.js';

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
        key: jtiKey('app', 'one'),
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

  it('rejects a replayed assertion, and any other with its jti and exp', async () => {
    await fresh();
    const token = await sign(key, 'ES256', claimsFor('app', { jti: 'once' }));
    expect(await validator.validate(contextFor(app, token))).toMatchObject({ success: true });
    expect(await validator.validate(contextFor(app, token))).toMatchObject({ success: false, reason: 'jti "once" was already used (replay)' });
    const resigned = await sign(key, 'ES256', claimsFor('app', { jti: 'once', iat: NOW_S - 10 }));
    expect(await validator.validate(contextFor(app, resigned))).toMatchObject({ success: false, reason: 'jti "once" was already used (replay)' });
  });

  it("records the jti with the assertion's exp: the client's own assertion with another exp is another record", async () => {
    // A replay repeats the signed exp; only the holder of the key can sign the same jti with another.
    await fresh();
    expect(await validator.validate(contextFor(app, await sign(key, 'ES256', claimsFor('app', { jti: 'again' }))))).toMatchObject({ success: true });
    const later = await sign(key, 'ES256', claimsFor('app', { jti: 'again', exp: NOW_S + 100 }));
    expect(await validator.validate(contextFor(app, later))).toMatchObject({ success: true });
    expect([...store.grants.keys()]).toEqual([jtiKey('app', 'again'), jtiKey('app', 'again', NOW_S + 100)]);
    expect(await validator.validate(contextFor(app, later))).toMatchObject({ success: false, reason: 'jti "again" was already used (replay)' });
  });

  it('keeps jtis apart per client', async () => {
    await fresh();
    expect(await validator.validate(contextFor(app, await sign(key, 'ES256', claimsFor('app', { jti: 'same' }))))).toMatchObject({ success: true });
    expect(await validator.validate(contextFor(app2, await sign(key, 'ES256', claimsFor('app2', { jti: 'same' }))))).toMatchObject({ success: true });
    expect([...store.grants.keys()]).toEqual([jtiKey('app', 'same'), jtiKey('app2', 'same')]);
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
