/**
 * A relying party's back-channel logout endpoint on loopback (OpenID Connect Back-Channel Logout
 * 1.0 §2.5), for tests: it records every logout token posted to it, can be down (answer 503) for
 * the first posts, and verifies a token as §2.6 tells a client to, with jose and the service's
 * published keys.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

export interface LogoutReceiver {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every post so far: its path and the `logout_token`. */
  readonly received: Array<{ path: string; token: string }>;
  /** The next `count` posts are answered 503, as a client that is down. */
  failNext(count: number): void;
  /** The next `count` posts are never answered (until `close`), as a client that hangs. */
  hangNext(count: number): void;
  /** Resolves once `count` posts have arrived in all (answered 200 or not). */
  arrivals(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startLogoutReceiver(): Promise<LogoutReceiver> {
  const received: Array<{ path: string; token: string }> = [];
  let failures = 0;
  let hangs = 0;
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ path: req.url!, token: new URLSearchParams(body).get('logout_token') ?? '' });
      if (hangs-- <= 0) res.writeHead(failures-- > 0 ? 503 : 200).end();
      for (const w of waiting.filter((x) => received.length >= x.count)) w.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    failNext(count) {
      failures = count;
    },
    hangNext(count) {
      hangs = count;
    },
    arrivals(count) {
      return received.length >= count ? Promise.resolve() : new Promise((resolve) => waiting.push({ count, resolve }));
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/**
 * §2.6: signature by a key of the issuer's JWKS, `typ` `logout+jwt`, `iss`, `aud`, `iat`, `exp`,
 * `jti`, the back-channel logout event, `sub` and/or `sid`, and no `nonce`. Throws when any fails.
 * `keysAt`: the node whose published keys to use, when the issuer's URL is another node.
 */
export async function verifyLogoutToken(
  token: string, issuer: string, audience: string, options: { keysAt?: string; currentDate?: Date } = {},
): Promise<JWTPayload> {
  const keys = createRemoteJWKSet(new URL(`${options.keysAt ?? issuer}/.well-known/openid-configuration/jwks`));
  const { payload } = await jwtVerify(token, keys, {
    issuer, audience, typ: 'logout+jwt', requiredClaims: ['iat', 'exp', 'jti', 'events'], ...(options.currentDate ? { currentDate: options.currentDate } : {}),
  });
  const events = payload.events as Record<string, unknown> | undefined;
  if (typeof events?.['http://schemas.openid.net/event/backchannel-logout'] !== 'object') throw new Error('no back-channel logout event');
  if (payload.sub === undefined && payload.sid === undefined) throw new Error('neither sub nor sid');
  if ('nonce' in payload) throw new Error('a logout token must not carry a nonce');
  return payload;
}

/**
 * The `logout.notified` and `logout.failed` events a test server logged so far, as one line each:
 * `web #1 delivered`, `web #1 answered 503`, `web gave up after 5: answered 503`.
 */
export function logoutOutcomes(logs: ReadonlyArray<Record<string, unknown>>): string[] {
  return logs.flatMap((line) => {
    const event = line.event as Record<string, unknown> | undefined;
    if (event?.type === 'logout.notified') return [`${String(event.clientId)} #${String(event.attempt)} ${String(event.reason ?? 'delivered')}`];
    if (event?.type === 'logout.failed') return [`${String(event.clientId)} gave up after ${String(event.attempts)}: ${String(event.reason)}`];
    return [];
  });
}

/** Resolves once `seen()` is true, looking every 20 ms; rejects after `timeoutMs` naming `what`. */
export async function eventually(what: string, seen: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!seen()) {
    if (Date.now() > end) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
