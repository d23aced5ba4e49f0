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
// The client as the grant contract gives it (`ctx.request.client`), not the host's fuller one.
import { authenticationOf } from '../authorize/acr.js';
import type { Client } from '../sdk/model.js';
import {
  AccessDenied, AuthorizationPending, ExpiredToken, InvalidGrant, InvalidRequest, SlowDown,
  type Clock, type ExtensionGrantValidator, type GrantSuccess, type Logger, type OAuthError,
} from '../sdk/index.js';
import type { Store } from '../store/store.js';
import { createDeviceFlowStore, type DeviceFlowStore } from '../device/device-flow-store.js';
import { recordPoll } from '../device/polling-interval.js';
import { familyOfSpentGrant, revokeFamily } from '../oauth/grant-family.js';
import { noResources, type ResourceCatalog } from '../oauth/resources.js';

export const deviceCodeGrantType = 'urn:ietf:params:oauth:grant-type:device_code';

/** Concurrent polls of one code race on compare-and-set; a loser re-reads and is usually too fast. */
const pollAttempts = 5;
const alreadyUsed = (): OAuthError => new InvalidGrant('The device code has already been used.');
const invalidCode = (): OAuthError => new InvalidGrant('The device code is invalid.');
const expired = (): OAuthError => new ExpiredToken('The device code has expired.');

export function createDeviceCodeGrant({ store, clock, logger, resources = noResources }: { store: Store; clock: Clock; logger: Logger; resources?: ResourceCatalog }): ExtensionGrantValidator {
  const flows = createDeviceFlowStore({ store, clock });

  /** A poll for a code that was redeemed at `redeemedAt`. */
  async function redeemedAgain(deviceCode: string, redeemedAt: number, client: Client): Promise<OAuthError> {
    if (clock.now() - redeemedAt < client.pollingInterval * 1000) return alreadyUsed();
    // The first redemption's node chose the format; the time-ordered id takes its plain twin along.
    const revoked = await revokeFamily(store, familyOfSpentGrant(deviceCode, true));
    logger.warn({ clientId: client.clientId, revoked }, 'device code redeemed again; the tokens of its first redemption revoked');
    return alreadyUsed();
  }

  return {
    grantType: deviceCodeGrantType,
    parameters: [{ name: 'device_code', maxLength: 100, secret: true }],
    async validate(ctx) {
      const deviceCode = ctx.request.raw.get('device_code');
      if (deviceCode === undefined) throw new InvalidRequest('The device_code parameter is required.');
      const success = await poll(flows, clock, deviceCode, ctx.request.client, redeemedAgain);
      // RFC 8707: the APIs named at device authorization, or some of them when the poll names any.
      const granted = success.grantedAudience;
      ctx.result = granted === undefined ? success : { ...success, audience: resources.within(granted, ctx.request.resources)! };
    },
    async spent(deviceCode, request) {
      const found = await flows.getDeviceCode(deviceCode);
      if (!found || found.clientId !== request.client.clientId) return invalidCode();
      // Not spent but no longer consumable: it expired while this poll was in flight.
      if (found.redeemedAt === undefined) return expired();
      return redeemedAgain(deviceCode, found.redeemedAt, request.client);
    },
  };
}

async function poll(
  flows: DeviceFlowStore,
  clock: Clock,
  deviceCode: string,
  client: Client,
  redeemedAgain: (deviceCode: string, redeemedAt: number, client: Client) => Promise<OAuthError>,
): Promise<GrantSuccess> {
  for (let attempt = 0; attempt < pollAttempts; attempt++) {
    const now = clock.now();
    const found = await flows.getDeviceCode(deviceCode);
    // A code of another client is as good as unknown, and must not touch the owner's polling state.
    if (!found || found.clientId !== client.clientId) throw invalidCode();
    if (found.redeemedAt !== undefined) throw await redeemedAgain(deviceCode, found.redeemedAt, client);
    const state = found.state.value;
    if (now >= state.expiresAt) throw expired();

    const { tooFast, next } = recordPoll(state, now);
    if (!(await flows.setDeviceCode(deviceCode, found.state, next))) continue;

    const flow = (await flows.getFlowOf(state))?.value;
    if (!flow || flow.flowId !== state.flowId) throw invalidCode();
    // RFC 8628 §3.5: slow_down is a pending answer. Once the user decided, a poll that came too
    // soon (often a duplicate of one racing on another node) hears the decision, and for an
    // approval the commit decides which of the racing polls gets the tokens.
    if (flow.status === 'pending') {
      if (tooFast) throw new SlowDown(`Polling too fast; wait at least ${next.interval} seconds between requests.`);
      throw new AuthorizationPending('The user has not yet approved the request.');
    }
    if (flow.status === 'denied') throw new AccessDenied('The user denied the request.');
    if (flow.subject === undefined || flow.authTime === undefined) throw new InvalidGrant();
    // One redemption, atomically across nodes: the token endpoint spends the code with the tokens.
    const subject = { kind: 'user', id: flow.subject, authTime: flow.authTime, ...authenticationOf(flow.amr, undefined), ...(flow.idp ? { idp: flow.idp } : {}) } as const;
    return { subject, scopes: flow.scopes, consumes: deviceCode, ...(flow.resources === undefined ? {} : { grantedAudience: flow.resources }) };
  }
  throw new SlowDown('Polling too fast; slow down.');
}

