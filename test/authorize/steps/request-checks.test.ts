/**
 * The request checks with plain values, in the flow's order: reading the request (front channel
 * or pushed, RFC 9126 §4), a page for what fails before the redirect URI is trusted and a
 * redirect for what fails after (RFC 6749 §4.1.2.1); the client still registered at its redirect
 * URI; the `id_token_hint` (OIDC Core §3.1.2.1) reduced to its subject.
 */
import { describe, expect, it } from 'vitest';
import { createRequestValidator } from '../../../src/authorize/authorization-request.js';
import { createIdTokenHintCheck } from '../../../src/authorize/steps/id-token-hint-check.js';
import { createLiveClients } from '../../../src/authorize/steps/live-client.js';
import { createRequestReader } from '../../../src/authorize/steps/read-request.js';
import type { Client } from '../../../src/config/schema.js';
import { clients, ISSUER, recordingInteractions, redirectQuery, request, silent, web } from './fakes.js';

const ctx = { browserId: undefined, remoteAddress: '10.0.0.7', requestId: 'req-1' };
const validator = createRequestValidator({ clients, scopeCatalog: { apiScopes: new Set(['api.read']), identityScopes: new Set(['openid']) } });
const pushed = new Map([['urn:ietf:params:oauth:request_uri:one', request()]]);
const read = createRequestReader({
  issuer: ISSUER, clients, validator, logger: silent,
  pushed: { take: async (uri, clientId) => { const r = pushed.get(uri); pushed.delete(uri); return r?.clientId === clientId ? r : undefined; } },
});
const params = (p: Record<string, string>) => new Map(Object.entries(p));

describe('reading the request', () => {
  it('reads a front-channel request', async () => {
    const r = await read(params({ client_id: 'web', redirect_uri: 'https://web.example/cb', response_type: 'code', scope: 'openid', state: 'st' }), ctx);
    expect(r).toMatchObject({ clientId: 'web', redirectUri: 'https://web.example/cb', scopes: ['openid'], state: 'st' });
  });

  it('shows an unknown client on a page, in the language asked for: its redirect URI is not trusted', async () => {
    const r = await read(params({ client_id: 'nobody', redirect_uri: 'https://evil.example/cb', response_type: 'code', ui_locales: 'de' }), ctx);
    expect(r).toMatchObject({ status: 400, view: { kind: 'message' }, uiLocales: 'de' });
  });

  it('answers a bad parameter of a known client at its redirect URI', async () => {
    const r = await read(params({ client_id: 'web', redirect_uri: 'https://web.example/cb', response_type: 'token', state: 'st' }), ctx);
    expect(redirectQuery(r)).toMatchObject({ error: 'unsupported_response_type', state: 'st', iss: ISSUER });
  });

  it('takes a pushed request once; the second use, or an unknown client_id, is the same page', async () => {
    const uri = { client_id: 'web', request_uri: 'urn:ietf:params:oauth:request_uri:one' };
    expect(await read(params(uri), ctx)).toEqual(request());
    const again = await read(params(uri), ctx);
    expect(again).toEqual({ status: 400, view: { kind: 'message', message: 'link-used' } });
    expect(await read(params({ ...uri, client_id: 'nobody' }), ctx)).toEqual(again);
  });
});

describe('the client, still registered at the redirect URI', () => {
  it('lets the request through while it is; after, the unknown-client page, ending the interaction', async () => {
    const live = new Map<string, Client>(clients);
    const interactions = recordingInteractions();
    const checks = createLiveClients({ clients: live, interactions, logger: silent });
    expect(await checks.check(request(), ctx)).toEqual(request());
    live.set('web', { ...web, redirectUris: ['https://web.example/other'] });
    expect(await checks.check(request(), ctx)).toEqual({ status: 400, view: { kind: 'message', message: 'client-unknown' } });
    expect(await checks.clientGone(request({ uiLocales: 'fr' }), ctx, 'i4')).toEqual({ status: 400, view: { kind: 'message', message: 'client-unknown' }, uiLocales: 'fr' });
    expect(interactions.calls).toEqual(['finish i4']);
  });
});

describe('the id_token_hint', () => {
  const hints = new Map([['alice-for-web', { sub: 'alice-sub', clientId: 'web', sid: undefined }], ['alice-for-partner', { sub: 'alice-sub', clientId: 'partner', sid: undefined }]]);
  const check = createIdTokenHintCheck({ issuer: ISSUER, readHint: async (t) => hints.get(t), logger: silent });

  it('passes a request without one untouched', async () => {
    const r = request();
    expect(await check(r, ctx)).toBe(r);
  });

  it('keeps only the subject of a hint issued to this client', async () => {
    expect(await check(request({ idTokenHint: 'alice-for-web' }), ctx)).toEqual({ ...request(), hintSubject: 'alice-sub' });
  });

  it.each([['issued to another client', 'alice-for-partner'], ['not an ID token of this service', 'garbage']])('answers invalid_request at the redirect URI for a hint %s', async (_case, hint) => {
    expect(redirectQuery(await check(request({ idTokenHint: hint }), ctx))).toEqual({ error: 'invalid_request', error_description: 'The id_token_hint is not valid.', state: 'st', iss: ISSUER });
  });

  it('refuses every hint when no reader is set up', async () => {
    const none = createIdTokenHintCheck({ issuer: ISSUER, logger: silent });
    expect(redirectQuery(await none(request({ idTokenHint: 'alice-for-web' }), ctx))).toMatchObject({ error: 'invalid_request' });
  });
});
