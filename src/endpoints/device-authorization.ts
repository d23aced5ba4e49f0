/**
 * POST /connect/deviceauthorization (RFC 8628 §3.1–3.2): authenticate the client, check it may
 * use the device grant and the scopes, start a flow, answer with the codes.
 */
import type { EventService } from '../events/event-service.js';
import type { Client } from '../config/schema.js';
import type { Clock } from '../sdk/contracts.js';
import type { Store } from '../store/store.js';
import type { ClientAuthenticator } from '../client-authentication/client-authenticator.js';
import { UnauthorizedClient } from '../oauth/errors.js';
import type { WindowLimit } from '../throttling/rate-limits.js';
import { tooManyRequests } from '../throttling/too-many-requests.js';
import { resolveRequestedScopes, type ScopeCatalog } from '../oauth/scopes.js';
import { repeatedValues } from '../oauth/form-params.js';
import { noResources, type ResourceCatalog } from '../oauth/resources.js';
import { createDeviceFlowStore } from '../device/device-flow-store.js';
import type { UserCodeScheme } from '../device/user-code.js';
import { deviceCodeGrantType } from '../grants/device-code.js';
import type { FormRequest } from './form-request.js';

/** RFC 8628 §3.2. */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export interface DeviceAuthorizationDeps {
  clientAuthenticator: ClientAuthenticator;
  scopeCatalog: ScopeCatalog;
  /** The APIs `resource` may name (RFC 8707); default none. */
  resources?: ResourceCatalog;
  store: Store;
  clock: Clock;
  userCodes: UserCodeScheme;
  /** The verification page, `<issuer>/device`. */
  verificationUri: string;
  /** Starts per address and per client: each start is a stored flow, so a flood fills the store. */
  limits: { perAddress: WindowLimit; perClient: WindowLimit };
  events?: EventService;
}

export function createDeviceAuthorizationEndpoint(deps: DeviceAuthorizationDeps) {
  const flows = createDeviceFlowStore({ store: deps.store, clock: deps.clock });

  function checkGrantType(client: Client): void {
    if (!client.allowedGrantTypes.includes(deviceCodeGrantType)) {
      throw new UnauthorizedClient(undefined, { logDetail: `client "${client.clientId}" may not use ${deviceCodeGrantType}` });
    }
  }

  // The address is counted before authentication, so a flood costs us no more than this check.
  function limitAddress(address: string | undefined): void {
    if (address === undefined) return;
    const wait = deps.limits.perAddress.take(address, deps.clock.now());
    if (wait > 0) throw tooManyRequests(wait, 'Too many device authorizations', 'device authorizations limited for the address');
  }

  // Per client too: a public client is named by its id alone, so one caller could fill the store
  // in its name from many addresses.
  function limitClient(client: Client): void {
    const wait = deps.limits.perClient.take(client.clientId, deps.clock.now());
    if (wait > 0) throw tooManyRequests(wait, 'Too many device authorizations', `device authorizations limited for client "${client.clientId}"`);
  }

  return async function deviceAuthorizationEndpoint(request: FormRequest): Promise<DeviceAuthorizationResponse> {
    limitAddress(request.remoteAddress);
    // Public clients authenticate with client_id alone (RFC 8628 §3.1, RFC 6749 §2.3).
    const { client } = await deps.clientAuthenticator.authenticateClient({ ...request, endpoint: 'device_authorization' });
    checkGrantType(client);
    limitClient(client);
    // With no `scope`, the device asks for everything the client is allowed, identity scopes
    // included (issue 6): the user sees and approves the whole list on the page.
    const scope = request.params.get('scope');
    const asked = scope === undefined ? [...client.allowedScopes] : resolveRequestedScopes(client, scope, deps.scopeCatalog);
    // RFC 8707: the APIs the device names are kept with the flow, with only their scopes.
    const { scopes, resources } = (deps.resources ?? noResources).grantTarget(client, repeatedValues(request.params, 'resource'), asked);
    const lifetime = client.deviceCodeLifetime;
    // The interval announced is the one the token endpoint enforces (RFC 8628 §3.5).
    const interval = client.pollingInterval;
    const started = await flows.start({
      clientId: client.clientId, scopes, ...(resources.length > 0 ? { resources } : {}), lifetimeSeconds: lifetime, intervalSeconds: interval, userCodes: deps.userCodes,
    });
    deps.events?.raise({ type: 'device.authorized', clientId: client.clientId, scopes }, request.requestId);
    const userCode = deps.userCodes.display(started.userCode);
    const complete = new URL(deps.verificationUri);
    complete.searchParams.set('user_code', userCode);
    return {
      device_code: started.deviceCode,
      user_code: userCode,
      verification_uri: deps.verificationUri,
      verification_uri_complete: complete.toString(),
      expires_in: lifetime,
      interval,
    };
  };
}
