/**
 * Explicit typing (RFC 8725 §3.11): an assertion whose `typ` names another kind of JWT (an
 * access token, an ID token's `JWT`-less cousins, a logout token...) never authenticates a
 * client. Accepted: no `typ`, `JWT` (RFC 7519 §5.1, any case), and RFC 10070's
 * `client-authentication+jwt`, each also with the `application/` prefix (RFC 7515 §4.1.9).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createAssertionValidator } from '../../../plugins/private-key-jwt/assertion-validator.js';
import { certificateSecret, claimsFor, contextFor, makeClient, makeDeps, makeKey, sign, type TestKey } from './helpers.js';

let key: TestKey;
let client: ReturnType<typeof makeClient>;
beforeAll(async () => {
  key = await makeKey('P-256');
  client = makeClient('app', [await certificateSecret(key)]);
});

async function validate(header: Record<string, unknown>) {
  const validator = createAssertionValidator(makeDeps({ clients: [client] }));
  return validator.validate(contextFor(client, await sign(key, 'ES256', claimsFor('app'), header)));
}

describe('the typ header of a client assertion', () => {
  it.each([
    ['absent', {}],
    ['JWT', { typ: 'JWT' }],
    ['jwt', { typ: 'jwt' }],
    ['application/jwt', { typ: 'application/jwt' }],
    ['client-authentication+jwt', { typ: 'client-authentication+jwt' }],
    ['Application/Client-Authentication+JWT', { typ: 'Application/Client-Authentication+JWT' }],
  ])('%s: accepted', async (_case, header) => {
    expect(await validate(header)).toMatchObject({ success: true });
  });

  it.each(['at+jwt', 'application/at+jwt', 'logout+jwt', 'dpop+jwt', 'JOSE', 'secevent+jwt', ''])(
    '%j: refused, the log reason names it',
    async (typ) => {
      expect(await validate({ typ })).toMatchObject({
        success: false,
        reason: `typ ${JSON.stringify(typ)} is not a client authentication type (absent, JWT or client-authentication+jwt; RFC 8725 §3.11)`,
      });
    },
  );
});
