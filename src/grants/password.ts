import type { ExtensionGrantValidator, PluginDependencies } from '../sdk/contracts.js';
import type { EventService } from '../events/event-service.js';

/**
 * RFC 6749 §4.3, the resource owner password credentials grant. An unknown user and a wrong
 * password get the same answer. The check itself is the `resourceOwnerValidator`, which a
 * deployment can replace with its own user store.
 */
export function createPasswordGrant({ resourceOwnerValidator, clock, events }: Pick<PluginDependencies, 'resourceOwnerValidator' | 'clock'> & {
  events?: EventService;
}): ExtensionGrantValidator {
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
        events?.raise({ type: 'user.sign_in_failed', via: 'password_grant', reason: 'wrong username or password' });
        ctx.result = { error: 'invalid_grant', description: 'The username or password is incorrect.' };
        return;
      }
      events?.raise({ type: 'user.signed_in', subject: user.subjectId, via: 'password_grant' });
      ctx.result = { subject: user.subjectId, grantType: 'password', authTime: Math.floor(clock.now() / 1000) };
    },
  };
}
