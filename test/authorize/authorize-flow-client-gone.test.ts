/**
 * The authorize flow with plain values when the client vanishes mid-request: a pushed request
 * (RFC 9126) whose client is deleted while its `request_uri` is being taken ends with the page an
 * unknown client gets, never a 500, and its interaction is not kept.
 */
import { describe, expect, it } from 'vitest';
import { createAuthorizeFlow, type AuthorizeFlowDeps } from '../../src/authorize/authorize-flow.js';
import type { AuthorizationRequest } from '../../src/authorize/authorization-request.js';
import { resolveConfig } from '../../src/config/resolve.js';
import type { Client } from '../../src/config/schema.js';

const config = resolveConfig({
  issuer: 'https://issuer.example',
  clients: [{ clientId: 'web', clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://web.example/cb'] }],
}, '/');
const pushedRequest: AuthorizationRequest = {
  clientId: 'web', redirectUri: 'https://web.example/cb', responseMode: 'query', state: 's', scopes: ['openid'], nonce: undefined,
  codeChallenge: undefined, prompt: [], maxAge: undefined, loginHint: undefined,
};
const unused = new Proxy({}, { get: () => { throw new Error('not expected in this test'); } });

describe('a pushed request whose client is deleted while its request_uri is taken', () => {
  it('answers the unknown-client page (400) and starts no interaction', async () => {
    const clients = new Map<string, Client>(config.clients.map((c) => [c.clientId, c]));
    const lines: string[] = [];
    const flow = createAuthorizeFlow({
      config, clients, clock: { now: () => Date.now() },
      logger: { info: (_o: unknown, line: string) => lines.push(line), warn: () => {}, error: () => {}, debug: () => {} },
      pushed: {
        push: () => Promise.reject(new Error('unused')),
        take: async () => {
          clients.delete('web'); // the RFC 7592 DELETE lands between the lookup and the take
          return pushedRequest;
        },
      },
      validator: unused, sessions: unused, interactions: unused, codes: unused, users: unused, passwordThrottle: unused, csrf: unused,
      newBrowserId: () => 'b', callbackUrl: 'https://issuer.example/cb', scopeDescriptions: new Map(),
    } as unknown as AuthorizeFlowDeps);
    const outcome = await flow.authorize(new Map([['client_id', 'web'], ['request_uri', 'urn:ietf:params:oauth:request_uri:x']]), { browserId: undefined, remoteAddress: '127.0.0.1' });
    expect(outcome).toEqual({ status: 400, view: { kind: 'message', message: 'client-unknown' } });
    expect(lines).toContain('authorization: the client is gone or disabled; the interaction ends');
  });
});
