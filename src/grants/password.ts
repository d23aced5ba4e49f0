import { InvalidGrant, InvalidRequest, type ExtensionGrantValidator, type PluginDependencies } from '../sdk/index.js';
import type { EventService } from '../events/event-service.js';
import type { ResolvedConfig } from '../config/schema.js';
import { createPasswordThrottle } from '../throttling/password-throttle.js';
import type { Counters } from '../throttling/counters.js';

/**
 * RFC 6749 §4.3, the resource owner password credentials grant. An unknown user and a wrong
 * password get the same answer, throttling included (RFC 6749 §4.3.2: the server MUST protect
 * the endpoint against brute force attacks). The check itself is the `resourceOwnerValidator`,
 * which a deployment can replace with its own user store.
 */
export function createPasswordGrant({ resourceOwnerValidator, clock, passwordThrottle, events, counters }: Pick<PluginDependencies, 'resourceOwnerValidator' | 'clock'> & {
  passwordThrottle: ResolvedConfig['passwordThrottle'];
  events?: EventService;
  /** Where the throttle counts; in this process when absent. */
  counters?: Counters;
}): ExtensionGrantValidator {
  // The app's one 'password' back-off: the device page and the sign-in page count in it too.
  const throttle = createPasswordThrottle(passwordThrottle, counters?.backoff('password', passwordThrottle));
  return {
    grantType: 'password',
    // The password reaches this grant (it checks it), so it is not a `credential` parameter.
    parameters: [{ name: 'username', maxLength: 100 }, { name: 'password', maxLength: 100, secret: true }],
    async validate(ctx) {
      const username = ctx.request.raw.get('username');
      const password = ctx.request.raw.get('password');
      if (username === undefined || password === undefined) {
        throw new InvalidRequest('The username and password parameters are required.');
      }
      const address = ctx.request.remoteAddress;
      await throttle.attempt(username, address, clock.now());
      const user = await resourceOwnerValidator.validate(username, password);
      if (!user) {
        await throttle.failed(address, clock.now());
        events?.raise({ type: 'user.sign_in_failed', via: 'password_grant', reason: 'wrong username or password' });
        throw new InvalidGrant('The username or password is incorrect.');
      }
      await throttle.succeeded(username, address);
      events?.raise({ type: 'user.signed_in', subject: user.subjectId, via: 'password_grant' });
      ctx.result = { subject: { kind: 'user', id: user.subjectId, authTime: Math.floor(clock.now() / 1000) } };
    },
  };
}
