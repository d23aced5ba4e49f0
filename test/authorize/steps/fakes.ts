/**
 * Plain values for the authorize steps: a request, clients from the service's own resolver, a
 * session, a CSRF key, and recording stand-ins for the interactions and sessions stores.
 */
import type { AuthorizationRequest } from '../../../src/authorize/authorization-request.js';
import type { AuthorizationResponse } from '../../../src/authorize/authorization-response.js';
import type { FlowOutcome } from '../../../src/authorize/flow-outcome.js';
import type { Interaction } from '../../../src/authorize/interactions.js';
import type { FlowState } from '../../../src/authorize/steps/flow-step.js';
import { createInteractionContinuation } from '../../../src/authorize/steps/continued-interaction.js';
import { createLiveClients } from '../../../src/authorize/steps/live-client.js';
import { resolveConfig } from '../../../src/config/resolve.js';
import type { Client } from '../../../src/config/schema.js';
import { createCsrf } from '../../../src/pages/csrf.js';
import type { SignInSession } from '../../../src/sessions/sign-in-sessions.js';
import type { Logger } from '../../../src/sdk/index.js';

export const ISSUER = 'https://issuer.example';
export const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);
export const clock = { now: () => NOW };

const config = resolveConfig({
  issuer: ISSUER,
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  apiScopes: [{ name: 'api.read' }],
  clients: [
    { clientId: 'web', clientName: 'Web shop', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'api.read'], redirectUris: ['https://web.example/cb'], requirePkce: false },
    { clientId: 'partner', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid', 'api.read'], redirectUris: ['https://partner.example/cb'], requirePkce: false, requireConsent: true },
  ],
}, '/');
export const web: Client = config.clients[0]!;
export const partner: Client = config.clients[1]!;
export const clients = new Map(config.clients.map((c) => [c.clientId, c]));

export function request(overrides: Partial<AuthorizationRequest> = {}): AuthorizationRequest {
  return {
    clientId: 'web', redirectUri: 'https://web.example/cb', responseMode: 'query', state: 'st', scopes: ['openid', 'api.read'],
    nonce: 'n', codeChallenge: undefined, prompt: [], maxAge: undefined, loginHint: undefined, ...overrides,
  };
}

export function session(overrides: Partial<SignInSession> = {}): SignInSession {
  return { subject: 'alice-sub', authTime: NOW / 1000 - 60, sid: 'sid-1', consents: {}, clients: [], ...overrides };
}

export function state(overrides: Partial<FlowState> = {}): FlowState {
  return {
    request: request(), client: web, ctx: { browserId: 'b1', remoteAddress: '10.0.0.7', requestId: 'req-1' },
    interactionId: undefined, interaction: undefined, browserId: 'b1', newBrowserId: undefined, session: session(), ...overrides,
  };
}

/** The query of a redirect outcome, as the client would read it. */
export function redirectQuery(outcome: unknown): Record<string, string> {
  const response = (outcome as FlowOutcome | undefined)?.response as Extract<AuthorizationResponse, { kind: 'redirect' }> | undefined;
  if (response?.kind !== 'redirect') throw new Error(`no redirect: ${JSON.stringify(outcome)}`);
  return Object.fromEntries(new URL(response.location).searchParams);
}

export const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

/** Interactions in a map, with every call written down. */
export function recordingInteractions() {
  const stored = new Map<string, Interaction>();
  const calls: string[] = [];
  let next = 0;
  return {
    stored,
    calls,
    async start(req: AuthorizationRequest) {
      const id = `i${++next}`;
      calls.push(`start ${id}`);
      stored.set(id, { request: req });
      return id;
    },
    async get(id: string) { return stored.get(id); },
    async update(id: string, interaction: Interaction) { calls.push(`update ${id}`); stored.set(id, interaction); },
    async finish(id: string) { calls.push(`finish ${id}`); stored.delete(id); },
  };
}

export const csrf = createCsrf(Buffer.alloc(32, 7));

/** The shared pieces every POST handler takes. */
export function pageParts(interactions = recordingInteractions()) {
  return {
    interactions,
    continuation: createInteractionContinuation({ csrf, interactions, logger: silent }),
    live: createLiveClients({ clients, interactions, logger: silent }),
  };
}

/** A page's form for an interaction, with the CSRF token of a browser. */
export function pageForm(interactionId: string, browserId: string, fields: Record<string, string> = {}): ReadonlyMap<string, string> {
  return new Map(Object.entries({ interaction: interactionId, csrf: csrf.tokenFor(`${browserId}:${interactionId}`), ...fields }));
}
