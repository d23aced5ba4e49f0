/** The password grant (RFC 6749 §4.3), called with plain deps. */
import { describe, expect, it } from 'vitest';
import { createPasswordGrant } from '../../src/grants/password.js';
import { checkConfig } from '../../src/config/load.js';
import type { User } from '../../src/config/schema.js';
import type { ResourceOwnerValidator } from '../../src/sdk/contracts.js';
import { grantContext, settle } from '../fixtures/grant-plugins/grant-context.js';

const config = checkConfig(
  { apiScopes: [{ name: 'api1.read' }], clients: [{ clientId: 'web', requireClientSecret: false, allowedGrantTypes: ['password'], allowedScopes: ['api1.read'] }] },
  process.cwd(),
);
const alice: User = { subjectId: '818727', username: 'alice', password: '$scrypt$…', claims: {} };

function setup() {
  const asked: Array<[string, string]> = [];
  const resourceOwnerValidator: ResourceOwnerValidator = {
    async validate(username, password) {
      asked.push([username, password]);
      return username === 'alice' && password === 'right' ? alice : undefined;
    },
    async findBySubject() {
      return undefined;
    },
  };
  const grant = createPasswordGrant({ resourceOwnerValidator, passwordThrottle: config.passwordThrottle, clock: { now: () => 1_900_000_000_500 } });
  const run = async (raw: Record<string, string>) => {
    const ctx = grantContext(config.clients[0]!, 'password', raw, ['api1.read']);
    await settle(grant, ctx);
    return ctx;
  };
  return { asked, grant, run };
}

describe('password grant', () => {
  it('succeeds for the user with that subjectId, auth_time now in seconds', async () => {
    const { run, grant } = setup();
    expect(grant.grantType).toBe('password');
    expect((await run({ username: 'alice', password: 'right' })).result).toEqual({ subject: { kind: 'user', id: '818727', authTime: 1_900_000_000 } });
  });

  it('gives the same answer for a wrong password and an unknown user', async () => {
    const { run } = setup();
    const wrong = (await run({ username: 'alice', password: 'wrong' })).result;
    const unknown = (await run({ username: 'mallory', password: 'right' })).result;
    expect(wrong).toEqual({ error: 'invalid_grant', description: 'The username or password is incorrect.' });
    expect(unknown).toEqual(wrong);
  });

  it.each([[{ username: 'alice' }], [{ password: 'right' }]])('answers invalid_request without asking the user store for %j', async (raw) => {
    const { run, asked } = setup();
    expect((await run(raw)).result).toEqual({ error: 'invalid_request', description: 'The username and password parameters are required.' });
    expect(asked).toEqual([]);
  });
});
