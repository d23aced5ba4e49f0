/** A small config shared by HTTP-level tests; demo secrets in the comments. */
import { hashSecret } from '../../src/sdk/hash.js';
import type { UserConfig } from '../../src/config/schema.js';

export const demoConfig: UserConfig = {
  apiScopes: [{ name: 'api1.read', description: 'Read API 1' }, { name: 'api1.write' }, { name: 'backend.read' }],
  apiResources: [
    { name: 'api1', scopes: ['api1.read', 'api1.write'], secrets: [{ value: hashSecret('api1-secret') }] },
    { name: 'backend', scopes: ['backend.read'], secrets: [{ value: hashSecret('backend-secret') }] },
  ],
  clients: [
    {
      clientId: 'm2m',
      clientSecrets: [{ value: hashSecret('m2m-secret') }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read', 'api1.write'],
    },
    // API 1 calling the back end on a user's behalf, as in the README: it fronts api1, so it may
    // delegate only user tokens addressed to api1. Secret: delegation-secret
    {
      clientId: 'api1.client',
      clientSecrets: [{ value: hashSecret('delegation-secret') }],
      allowedGrantTypes: ['delegation'],
      allowedScopes: ['backend.read'],
      allowedSubjectTokenAudiences: ['api1'],
    },
    // A web app signing users in with the authorization code flow, as in the README. Secret: webapp-secret
    {
      clientId: 'webapp',
      clientSecrets: [{ value: hashSecret('webapp-secret') }],
      allowedGrantTypes: ['authorization_code'],
      allowedScopes: ['api1.read'],
      redirectUris: ['http://localhost:8080/callback'],
    },
  ],
};
