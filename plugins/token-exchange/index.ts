/**
 * RFC 8693 token exchange: the standard form of delegation and impersonation.
 */
import { definePlugin } from 'svc/sdk';
import { createTokenExchangeGrant } from './token-exchange-grant.js';

export default definePlugin({
  name: 'token-exchange',
  extensionGrants: [createTokenExchangeGrant],
});
