/**
 * The delegation extension grant (spec §4.1, the worked example): an API that received a
 * user's access token swaps it for a token to call a back-end API as that user.
 */
import { allowedSubjectTokenAudiences, definePlugin } from 'svc/sdk';
import { createDelegationGrant } from './delegation-grant.js';

export default definePlugin({
  name: 'delegation',
  // The APIs a client fronts: the same declaration the other exchanging plugin lists (one field, checked once).
  clientFields: [allowedSubjectTokenAudiences],
  extensionGrants: [createDelegationGrant],
});
