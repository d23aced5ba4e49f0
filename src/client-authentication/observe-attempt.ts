/**
 * Step 3b, observe: runs one attempt, then counts it for the throttle, reports it as events and
 * records the holder's last use. Only a refusal of the caller (`invalid_client`, 401) counts as a
 * failure: a 429 from the throttle or a malformed request (`invalid_request`) does not.
 */
import type { ClientDirectory } from '../clients/client-directory.js';
import { isOAuthError } from '../oauth/errors.js';
import type { AttemptReport } from './authentication-events.js';
import type { AttemptThrottle } from './throttle-attempt.js';
import type { Attempt, AuthenticationSource } from './types.js';

export type AttemptObserver = <T>(
  source: AuthenticationSource,
  report: AttemptReport<T>,
  run: (source: AuthenticationSource, attempt: Attempt) => Promise<T>,
) => Promise<T>;

export function createAttemptObserver(
  throttle: AttemptThrottle,
  directory: Pick<ClientDirectory, 'used'> | undefined,
): AttemptObserver {
  return async function observe(source, report, run) {
    const attempt: Attempt = {};
    try {
      const result = await run(source, attempt);
      const reset = throttle.succeeded(report.idOf(result), source, attempt);
      if (reset) await reset;
      report.success(result, source);
      directory?.used(report.kind, report.idOf(result));
      return result;
    } catch (err) {
      if (isOAuthError(err) && err.code === 'invalid_client' && err.status === 401) {
        const id = attempt.id ?? source.params.get('client_id');
        const method = attempt.method ?? 'none';
        report.failure(id, method, err.logDetail ?? err.description, attempt.observations, source);
        if (id !== undefined && attempt.disabled) report.alarm(id, method, 'disabled', source);
        if (id !== undefined && attempt.expiredSecret) report.alarm(id, method, 'expired_secret', source);
        const counting = throttle.failed(id, source);
        if (counting) await counting;
      }
      throw err;
    }
  };
}
