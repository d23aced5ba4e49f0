/**
 * RFC 8628 §3.4–3.5, the device authorization grant: the device polls with its device code
 * until the user approved or denied on the verification page, or the code expired.
 *
 * An approved poll does not spend the code itself: it answers with `consumes`, and the token
 * endpoint spends the code in the same transaction that stores the tokens, so a store failure
 * leaves the code usable for the next poll. A code redeemed a second time ends the tokens of
 * the first redemption (RFC 6749 §4.1.2 by analogy) — unless the second poll came within the
 * polling interval of the first, which only a duplicate of the same poll does (two nodes, a
 * retry): that one is refused and the tokens are kept.
 */
import type { Client } from '../config/schema.js';
import type { Clock, ExtensionGrantValidator, GrantError, GrantResult, PluginDependencies } from '../sdk/contracts.js';
import { createDeviceFlowStore, type DeviceFlowStore } from '../device/device-flow-store.js';
import { recordPoll } from '../device/polling-interval.js';
import { familyOfSpentGrant, revokeFamily } from '../oauth/grant-family.js';

export const deviceCodeGrantType = 'urn:ietf:params:oauth:grant-type:device_code';

/** Concurrent polls of one code race on compare-and-set; a loser re-reads and is usually too fast. */
const pollAttempts = 5;
const alreadyUsed: GrantError = { error: 'invalid_grant', description: 'The device code has already been used.' };

export function createDeviceCodeGrant({ store, clock, logger }: Pick<PluginDependencies, 'store' | 'clock' | 'logger'>): ExtensionGrantValidator {
  const flows = createDeviceFlowStore({ store, clock });

  /** A poll for a code that was redeemed at `redeemedAt`. */
  async function redeemedAgain(deviceCode: string, redeemedAt: number, client: Client): Promise<GrantError> {
    if (clock.now() - redeemedAt < client.pollingInterval * 1000) return alreadyUsed;
    const revoked = await revokeFamily(store, familyOfSpentGrant(deviceCode));
    logger.warn({ clientId: client.clientId, revoked }, 'device code redeemed again; the tokens of its first redemption revoked');
    return alreadyUsed;
  }

  return {
    grantType: deviceCodeGrantType,
    async validate(ctx) {
      const deviceCode = ctx.request.raw.get('device_code');
      if (deviceCode === undefined) {
        ctx.result = { error: 'invalid_request', description: 'The device_code parameter is required.' };
        return;
      }
      ctx.result = await poll(flows, clock, deviceCode, ctx.request.client, redeemedAgain);
    },
    async spent(deviceCode, request) {
      const found = await flows.getDeviceCode(deviceCode);
      if (!found || found.clientId !== request.client.clientId) return { error: 'invalid_grant', description: 'The device code is invalid.' };
      // Not spent but no longer consumable: it expired while this poll was in flight.
      if (found.redeemedAt === undefined) return { error: 'expired_token', description: 'The device code has expired.' };
      return redeemedAgain(deviceCode, found.redeemedAt, request.client);
    },
  };
}

async function poll(
  flows: DeviceFlowStore,
  clock: Clock,
  deviceCode: string,
  client: Client,
  redeemedAgain: (deviceCode: string, redeemedAt: number, client: Client) => Promise<GrantError>,
): Promise<GrantResult> {
  for (let attempt = 0; attempt < pollAttempts; attempt++) {
    const now = clock.now();
    const found = await flows.getDeviceCode(deviceCode);
    // A code of another client is as good as unknown, and must not touch the owner's polling state.
    if (!found || found.clientId !== client.clientId) return { error: 'invalid_grant', description: 'The device code is invalid.' };
    if (found.redeemedAt !== undefined) return redeemedAgain(deviceCode, found.redeemedAt, client);
    const state = found.state.value;
    if (now >= state.expiresAt) return { error: 'expired_token', description: 'The device code has expired.' };

    const { tooFast, next } = recordPoll(state, now);
    if (!(await flows.setDeviceCode(deviceCode, found.state, next))) continue;

    const flow = (await flows.getFlowOf(state))?.value;
    if (!flow || flow.flowId !== state.flowId) return { error: 'invalid_grant', description: 'The device code is invalid.' };
    // RFC 8628 §3.5: slow_down is a pending answer. Once the user decided, a poll that came too
    // soon (often a duplicate of one racing on another node) hears the decision, and for an
    // approval the commit decides which of the racing polls gets the tokens.
    if (flow.status === 'pending') {
      if (tooFast) return { error: 'slow_down', description: `Polling too fast; wait at least ${next.interval} seconds between requests.` };
      return { error: 'authorization_pending', description: 'The user has not yet approved the request.' };
    }
    if (flow.status === 'denied') return { error: 'access_denied', description: 'The user denied the request.' };
    if (flow.subject === undefined || flow.authTime === undefined) return { error: 'invalid_grant' };
    // One redemption, atomically across nodes: the token endpoint spends the code with the tokens.
    return { subject: flow.subject, grantType: deviceCodeGrantType, authTime: flow.authTime, scopes: flow.scopes, consumes: deviceCode };
  }
  return { error: 'slow_down', description: 'Polling too fast; slow down.' };
}

