/**
 * The delegation extension grant (spec §4.1, the worked example): an API that received a
 * user's access token swaps it for a token to call a back-end API as that user.
 */
import { definePlugin } from 'svc/sdk';
import { createDelegationGrant } from './delegation-grant.js';

export default definePlugin({
  name: 'delegation',
  extensionGrants: [createDelegationGrant],
});
