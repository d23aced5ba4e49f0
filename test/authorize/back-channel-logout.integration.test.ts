/**
 * Back-channel logout (OIDC Back-Channel Logout 1.0) against real HTTP servers on loopback
 * standing in for the clients: what each receives (a logout token a client can verify with the
 * service's keys, §2.6), who is not called, and how a client that fails is reported, without the
 * token ever reaching a log line or an event.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { resolveConfig } from '../../src/config/resolve.js';
import { createBackChannelLogout, backChannelLogoutEvent } from '../../src/authorize/back-channel-logout.js';
import type { RaisedEvent, ServiceEvent } from '../../src/events/service-event.js';
import type { EventService } from '../../src/events/event-service.js';
import type { SigningKey } from '../../src/oauth/keys/signing-key.js';
import { tracingOff } from '../../src/tracing/tracing.js';
import { keyRingOf, signingKeys } from '../oauth/signing-keys.js';

interface Received { path: string; contentType: string | undefined; body: URLSearchParams }
let rp: Server;
let rpUrl: string;
const received: Received[] = [];
let keys: Map<string, SigningKey>;

const read = async (req: IncomingMessage): Promise<string> => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
};

beforeAll(async () => {
  keys = await signingKeys(['RS256', 'ES256']);
  rp = createServer((req, res) => {
    void read(req).then((text) => {
      received.push({ path: req.url!, contentType: req.headers['content-type'], body: new URLSearchParams(text) });
      if (req.url === '/fails') res.writeHead(500).end();
      else if (req.url === '/moves') res.writeHead(302, { location: `${rpUrl}/elsewhere` }).end();
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 2000);
      else res.writeHead(req.url === '/no-content' ? 204 : 200).end();
    });
  });
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  rpUrl = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => rp.close(() => resolve())));

const client = (clientId: string, extra: Record<string, unknown> = {}) => ({
  clientId, clientSecrets: [{ value: 'x' }], allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://rp.example/cb'], ...extra,
});
const config = resolveConfig({
  issuer: 'https://issuer.example',
  identityResources: [{ name: 'openid', claims: ['sub'] }],
  signing: { idTokenAlgorithms: ['RS256', 'ES256'] },
  clients: [client('web'), client('shop', { allowedIdentityTokenSigningAlgorithms: ['ES256'] }), client('quiet'), client('broken'), client('moved'), client('slow'), client('gone'), client('terse')],
}, '/');
const clients = new Map(config.clients.map((c) => [c.clientId, c]));
const session = (sessionClients: string[]) => ({ subject: 'alice-1', authTime: 1_700_000_000, sid: 'sid-42', consents: {}, clients: sessionClients });

function logoutWith(uris: Record<string, string>, timeoutMs = 5000) {
  const lines: Array<Record<string, unknown>> = [];
  const events: RaisedEvent[] = [];
  const logger = { debug() {}, info: (obj: object, msg?: string) => void lines.push({ ...obj, msg }), warn() {}, error() {}, child: () => logger };
  const logout = createBackChannelLogout({
    issuer: config.issuer, clients, logoutUriOf: (c) => uris[c.clientId], keyRing: keyRingOf(keys),
    clock: { now: () => Date.now() }, logger, tracing: tracingOff, timeoutMs,
    events: { raise: (event: ServiceEvent, requestId?: string) => void events.push({ ...event, time: '', ...(requestId ? { requestId } : {}) }) } as unknown as EventService,
  });
  return { logout, lines, events };
}

describe('back-channel logout', () => {
  it('posts each client of the session a logout token it can verify with the service key, signed as its ID tokens', async () => {
    received.length = 0;
    const { logout, events } = logoutWith({ web: `${rpUrl}/web/logout`, shop: `${rpUrl}/shop/logout` });
    await logout.notify(session(['web', 'shop', 'quiet']), 'req-1');
    expect(received.map((r) => r.path).sort()).toEqual(['/shop/logout', '/web/logout']);
    const tokens = new Map(received.map((r) => [r.path, r.body.get('logout_token')!]));
    for (const [path, alg, aud] of [['/web/logout', 'RS256', 'web'], ['/shop/logout', 'ES256', 'shop']] as const) {
      const token = tokens.get(path)!;
      expect(received.find((r) => r.path === path)!.contentType).toBe('application/x-www-form-urlencoded');
      expect(decodeProtectedHeader(token)).toMatchObject({ alg, typ: 'logout+jwt' });
      // §2.6 as a client checks it: signature, iss, aud, iat, typ, the event, sub or sid, and no nonce.
      const { payload } = await jwtVerify(token, keys.get(alg)!.publicKey, { issuer: 'https://issuer.example', audience: aud, typ: 'logout+jwt' });
      expect(payload).toMatchObject({ sub: 'alice-1', sid: 'sid-42', events: { [backChannelLogoutEvent]: {} } });
      expect(payload).not.toHaveProperty('nonce');
      expect(payload.exp! - payload.iat!).toBe(120);
      expect(payload.jti).toMatch(/^[\w-]{36}$/);
    }
    expect(tokens.get('/web/logout')).not.toBe(tokens.get('/shop/logout'));
    expect(events.map((e) => e.type === 'logout.notified' && [e.clientId, e.delivered, e.requestId])).toEqual(expect.arrayContaining([['web', true, 'req-1'], ['shop', true, 'req-1']]));
  });

  it('calls no one for a client without a back-channel URI or a client that is gone', async () => {
    received.length = 0;
    const { logout, events } = logoutWith({ web: `${rpUrl}/web/logout` });
    await logout.notify(session(['quiet', 'no-such-client']));
    expect(received).toEqual([]);
    expect(events).toEqual([]);
  });

  it('reports a client that fails, redirects, is down or too slow, with the reason and never the token', async () => {
    received.length = 0;
    const down = `http://127.0.0.1:${await closedPort()}/logout`;
    const { logout, lines, events } = logoutWith({
      broken: `${rpUrl}/fails`, moved: `${rpUrl}/moves`, gone: down, slow: `${rpUrl}/slow`, terse: `${rpUrl}/no-content`,
    }, 500);
    await logout.notify(session(['broken', 'moved', 'gone', 'slow', 'terse']));
    const outcome = Object.fromEntries(events.map((e) => [e.type === 'logout.notified' ? e.clientId : '', e.type === 'logout.notified' ? e.reason ?? 'delivered' : '']));
    expect(outcome).toEqual({
      broken: 'answered 500', moved: 'answered 302', gone: 'not reachable', slow: 'no answer within 500 ms', terse: 'delivered',
    });
    // The redirect was not followed.
    expect(received.map((r) => r.path)).not.toContain('/elsewhere');
    const sent = received.map((r) => r.body.get('logout_token')!);
    expect(sent.length).toBeGreaterThan(0);
    for (const token of sent) {
      expect(JSON.stringify(lines)).not.toContain(token.split('.')[2]);
      expect(JSON.stringify(events)).not.toContain(token.split('.')[2]);
    }
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
