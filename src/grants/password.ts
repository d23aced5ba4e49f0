import type { ExtensionGrantValidator, PluginDependencies } from '../sdk/contracts.js';

/**
 * RFC 6749 §4.3, the resource owner password credentials grant. An unknown user and a wrong
 * password get the same answer. The check itself is the `resourceOwnerValidator`, which a
 * deployment can replace with its own user store.
 */
export function createPasswordGrant({ resourceOwnerValidator, clock }: Pick<PluginDependencies, 'resourceOwnerValidator' | 'clock'>): ExtensionGrantValidator {
  return {
    grantType: 'password',
    async validate(ctx) {
      const username = ctx.request.raw.get('username');
      const password = ctx.request.raw.get('password');
      if (username === undefined || password === undefined) {
        ctx.result = { error: 'invalid_request', description: 'The username and password parameters are required.' };
        return;
      }
      const user = await resourceOwnerValidator.validate(username, password);
      if (!user) {
        ctx.result = { error: 'invalid_grant', description: 'The username or password is incorrect.' };
        return;
      }
      ctx.result = { subject: user.subjectId, grantType: 'password', authTime: Math.floor(clock.now() / 1000) };
    },
  };
}
