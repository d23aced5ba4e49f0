/**
 * RFC 8628 §3.4–3.5, the device authorization grant: the device polls with its device code
 * until the user approved or denied on the verification page, or the code expired.
 */
import type { Clock, ExtensionGrantValidator, GrantResult, PluginDependencies } from '../sdk/contracts.js';
import { createDeviceFlowStore, type DeviceFlowStore } from '../device/device-flow-store.js';
import { recordPoll } from '../device/polling-interval.js';

export const deviceCodeGrantType = 'urn:ietf:params:oauth:grant-type:device_code';

/** Concurrent polls of one code race on compare-and-set; a loser re-reads and is usually too fast. */
const pollAttempts = 5;

export function createDeviceCodeGrant({ store, clock }: Pick<PluginDependencies, 'store' | 'clock'>): ExtensionGrantValidator {
  const flows = createDeviceFlowStore({ store, clock });
  return {
    grantType: deviceCodeGrantType,
    async validate(ctx) {
      const deviceCode = ctx.request.raw.get('device_code');
      if (deviceCode === undefined) {
        ctx.result = { error: 'invalid_request', description: 'The device_code parameter is required.' };
        return;
      }
      ctx.result = await poll(flows, clock, deviceCode, ctx.request.client.clientId);
    },
  };
}

async function poll(flows: DeviceFlowStore, clock: Clock, deviceCode: string, clientId: string): Promise<GrantResult> {
  for (let attempt = 0; attempt < pollAttempts; attempt++) {
    const now = clock.now();
    const found = await flows.getDeviceCode(deviceCode);
    // A code of another client is as good as unknown, and must not touch the owner's polling state.
    if (!found || found.clientId !== clientId) return { error: 'invalid_grant', description: 'The device code is invalid.' };
    if (found.redeemed) return { error: 'invalid_grant', description: 'The device code has already been used.' };
    const state = found.state.value;
    if (now >= state.expiresAt) return { error: 'expired_token', description: 'The device code has expired.' };

    const { tooFast, next } = recordPoll(state, now);
    if (!(await flows.setDeviceCode(deviceCode, found.state, next))) continue;
    if (tooFast) {
      return { error: 'slow_down', description: `Polling too fast; wait at least ${next.interval} seconds between requests.` };
    }

    const flow = (await flows.getFlow(state.userCode))?.value;
    if (!flow || flow.flowId !== state.flowId) return { error: 'invalid_grant', description: 'The device code is invalid.' };
    if (flow.status === 'pending') return { error: 'authorization_pending', description: 'The user has not yet approved the request.' };
    if (flow.status === 'denied') return { error: 'access_denied', description: 'The user denied the request.' };
    if (flow.subject === undefined || flow.authTime === undefined) return { error: 'invalid_grant' };
    // One redemption, atomically across nodes; every later poll is `invalid_grant`.
    if (!(await flows.redeem(deviceCode))) return { error: 'invalid_grant', description: 'The device code has already been used.' };
    return { subject: flow.subject, grantType: deviceCodeGrantType, authTime: flow.authTime, scopes: flow.scopes };
  }
  return { error: 'slow_down', description: 'Polling too fast; slow down.' };
}
