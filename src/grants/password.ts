import type { ExtensionGrantValidator, PluginDependencies } from '../sdk/contracts.js';
import type { EventService } from '../events/event-service.js';
import { createPasswordThrottle } from '../oauth/password-throttle.js';
import type { Counters } from '../counters/counters.js';

/**
 * RFC 6749 §4.3, the resource owner password credentials grant. An unknown user and a wrong
 * password get the same answer, throttling included (RFC 6749 §4.3.2: the server MUST protect
 * the endpoint against brute force attacks). The check itself is the `resourceOwnerValidator`,
 * which a deployment can replace with its own user store.
 */
export function createPasswordGrant({ resourceOwnerValidator, clock, config, events, counters }: Pick<PluginDependencies, 'resourceOwnerValidator' | 'clock' | 'config'> & {
  events?: EventService;
  /** Where the throttle counts; in this process when absent. */
  counters?: Counters;
}): ExtensionGrantValidator {
  const throttle = createPasswordThrottle(config.passwordThrottle, counters?.backoff('password', config.passwordThrottle));
  return {
    grantType: 'password',
    async validate(ctx) {
      const username = ctx.request.raw.get('username');
      const password = ctx.request.raw.get('password');
      if (username === undefined || password === undefined) {
        ctx.result = { error: 'invalid_request', description: 'The username and password parameters are required.' };
        return;
      }
      const address = ctx.request.remoteAddress;
      await throttle.attempt(username, address, clock.now());
      const user = await resourceOwnerValidator.validate(username, password);
      if (!user) {
        await throttle.failed(address, clock.now());
        events?.raise({ type: 'user.sign_in_failed', via: 'password_grant', reason: 'wrong username or password' });
        ctx.result = { error: 'invalid_grant', description: 'The username or password is incorrect.' };
        return;
      }
      await throttle.succeeded(username, address);
      events?.raise({ type: 'user.signed_in', subject: user.subjectId, via: 'password_grant' });
      ctx.result = { subject: user.subjectId, grantType: 'password', authTime: Math.floor(clock.now() / 1000) };
    },
  };
}
