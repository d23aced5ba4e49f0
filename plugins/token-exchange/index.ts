/**
 * RFC 8693 token exchange: the standard form of delegation and impersonation.
 */
import { allowedSubjectTokenAudiences, definePlugin } from 'svc/sdk';
import { createTokenExchangeGrant } from './token-exchange-grant.js';

export default definePlugin({
  name: 'token-exchange',
  // The APIs a client fronts: the same declaration the other exchanging plugin lists (one field, checked once).
  clientFields: [allowedSubjectTokenAudiences],
  extensionGrants: [createTokenExchangeGrant],
});
