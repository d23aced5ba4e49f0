/**
 * Step 3b, observe, with a plain attempt: a success resets the throttle's count, raises its event
 * and records the holder's use; only a refusal of the caller (`invalid_client`, 401) counts as a
 * failure and is reported, with an alarm of its own for a disabled holder or an expired secret.
 */
import { describe, expect, it } from 'vitest';
import { apiAuthenticationEvents, clientAuthenticationEvents } from '../../src/client-authentication/authentication-events.js';
import { createAttemptObserver } from '../../src/client-authentication/observe-attempt.js';
import { denied } from '../../src/client-authentication/refusal.js';
import type { AttemptThrottle } from '../../src/client-authentication/throttle-attempt.js';
import type { Attempt, AuthenticatedClient } from '../../src/client-authentication/types.js';
import { createEventService } from '../../src/events/event-service.js';
import { InvalidRequest, OAuthError } from '../../src/oauth/errors.js';
import type { RaisedEvent } from '../../src/sdk/index.js';
import { silentLogger } from '../plugins/private-key-jwt/helpers.js';
import { client, NOW, source } from './fakes.js';

function setup() {
  const events: RaisedEvent[] = [];
  const counted: string[] = [];
  const used: string[] = [];
  const eventService = createEventService(silentLogger, () => NOW);
  eventService.attach([{ handle: (e) => void events.push(e) }]);
  const throttle: AttemptThrottle = {
    check: () => undefined,
    succeeded: (id, _s, attempt) => void (attempt.counted && counted.push(`reset ${id}`)),
    failed: (id) => void counted.push(`failed ${id}`),
  };
  const observe = createAttemptObserver(throttle, { used: (kind, id) => void used.push(`${kind} ${id}`) });
  return { observe, events, counted, used, clientEvents: clientAuthenticationEvents(eventService), apiEvents: apiAuthenticationEvents(eventService) };
}

const web = client('web', []);
const strip = (events: RaisedEvent[]) => events.map(({ type, ...rest }) => ({ type, ...Object.fromEntries(Object.entries(rest).filter(([k]) => !['time', 'id', 'requestId'].includes(k))) }));

describe('observing an attempt', () => {
  it('on success: resets what the throttle counted, raises client.authenticated, records the use', async () => {
    const { observe, events, counted, used, clientEvents } = setup();
    const result = await observe(source(), clientEvents, async (_s, attempt: Attempt): Promise<AuthenticatedClient> => {
      attempt.counted = true;
      return { client: web, method: 'client_secret_basic', assertionAudience: 'token_endpoint' };
    });
    expect(result.client).toBe(web);
    expect(counted).toEqual(['reset web']);
    expect(used).toEqual(['client web']);
    expect(strip(events)).toEqual([{ type: 'client.authenticated', clientId: 'web', method: 'client_secret_basic', endpoint: 'token', assertionAudience: 'token_endpoint' }]);
  });

  it('on a refusal: reports the id and method the credentials claimed and the log-only reason, counts the failure, raises the alarms', async () => {
    const { observe, events, counted, used, clientEvents } = setup();
    const refusal = observe(source(), clientEvents, async (s, attempt) => {
      Object.assign(attempt, { id: 'web', method: 'client_secret_post', disabled: true, expiredSecret: true });
      throw denied(s, 'the reason');
    });
    await expect(refusal).rejects.toMatchObject({ code: 'invalid_client' });
    expect(counted).toEqual(['failed web']);
    expect(used).toEqual([]);
    expect(strip(events)).toEqual([
      { type: 'client.authentication_failed', clientId: 'web', method: 'client_secret_post', endpoint: 'token', reason: 'the reason' },
      { type: 'client.disabled_used', clientId: 'web', method: 'client_secret_post', endpoint: 'token' },
      { type: 'client.expired_secret_used', clientId: 'web', method: 'client_secret_post', endpoint: 'token' },
    ]);
  });

  it('falls back to the client_id parameter and method none when no credentials were found', async () => {
    const { observe, events, clientEvents } = setup();
    await observe(source({ client_id: 'typed' }), clientEvents, async (s) => { throw denied(s, 'none'); }).catch(() => undefined);
    expect(strip(events)).toEqual([{ type: 'client.authentication_failed', clientId: 'typed', method: 'none', endpoint: 'token', reason: 'none' }]);
  });

  it.each([
    ['a 429 of the throttle', new OAuthError('temporarily_unavailable', 'wait', { status: 429 })],
    ['a malformed request (two methods)', new InvalidRequest('More than one client authentication method was used.')],
    ['a bug', new TypeError('bug')],
  ])('neither counts nor reports %s', async (_case, error) => {
    const { observe, events, counted, clientEvents } = setup();
    await expect(observe(source(), clientEvents, async () => { throw error; })).rejects.toBe(error);
    expect([events, counted]).toEqual([[], []]);
  });

  it('reports API resources with their own events, without an endpoint', async () => {
    const { observe, events, used, apiEvents } = setup();
    await observe(source(), apiEvents, async () => ({ apiResource: { name: 'orders', scopes: [], secrets: [] }, method: 'client_secret_basic' }));
    expect(strip(events)).toEqual([{ type: 'api.authenticated', apiResource: 'orders', method: 'client_secret_basic' }]);
    expect(used).toEqual(['apiResource orders']);
  });
});
