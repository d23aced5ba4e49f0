/** The client_credentials grant (RFC 6749 §4.4), called with plain deps. */
import { describe, expect, it } from 'vitest';
import { createClientCredentialsGrant } from '../../src/grants/client-credentials.js';
import { checkConfig } from '../../src/config/load.js';
import { grantContext, settle } from '../fixtures/grant-plugins/grant-context.js';
import { hashSecret } from '../../src/sdk/hash.js';

const config = checkConfig(
  {
    apiScopes: [{ name: 'api1.read' }],
    identityResources: [{ name: 'openid', claims: ['sub'] }],
    clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret('m2m-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read', 'openid'], allowOfflineAccess: true }],
  },
  process.cwd(),
);
const client = config.clients[0]!;
const grant = createClientCredentialsGrant({ config });

async function run(scopes: string[]) {
  const ctx = grantContext(client, 'client_credentials', {}, scopes);
  await settle(grant, ctx);
  return ctx.result;
}

describe('client_credentials grant', () => {
  it('makes the client its own subject, with no auth_time', async () => {
    expect(await run(['api1.read'])).toEqual({ subject: { kind: 'client', id: 'm2m' } });
  });

  it.each(['offline_access', 'openid'])('refuses %s: it needs a user', async (scope) => {
    expect(await run(['api1.read', scope])).toEqual({ error: 'invalid_scope', description: `Identity scopes and offline_access need a user; client_credentials has none.` });
  });
});
