/** DPoP server nonces (RFC 9449 §8): an HMAC of the time window, fresh for this window and the last. */
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createDpopNonces } from '../../src/sender-binding/dpop-nonces.js';
import { comparableHtu } from '../../src/sender-binding/dpop-htu.js';

function nonces(secret = randomBytes(32)) {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const clock = { now: () => now };
  return { n: createDpopNonces({ secret: async () => secret, clock, lifetimeSeconds: 60 }), advance: (s: number) => (now += s * 1000), secret };
}

describe('DPoP nonces', () => {
  it('are fresh in their window and the next, stale after that', async () => {
    const { n, advance } = nonces();
    const nonce = await n.current();
    expect(await n.isFresh(nonce)).toBe(true);
    advance(60);
    expect(await n.isFresh(nonce)).toBe(true);
    expect(await n.current()).not.toBe(nonce);
    advance(60);
    expect(await n.isFresh(nonce)).toBe(false);
  });

  it('are accepted by another instance with the same secret and refused with another', async () => {
    const a = nonces();
    const nonce = await a.n.current();
    expect(await nonces(a.secret).n.isFresh(nonce)).toBe(true);
    expect(await nonces().n.isFresh(nonce)).toBe(false);
  });

  it('refuse forged, future and malformed values', async () => {
    const { n } = nonces();
    const nonce = await n.current();
    const [window, mac] = nonce.split('.') as [string, string];
    const future = (Number.parseInt(window, 36) + 1).toString(36);
    for (const bad of [`${future}.${mac}`, `${window}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`, `${window}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`, `${window}.`, mac, '', 'x'.repeat(100), `${window}.${mac}=`]) {
      expect(await n.isFresh(bad), bad).toBe(false);
    }
  });
});

describe('htu comparison', () => {
  it('ignores query, fragment, scheme and host case and a default port', () => {
    expect(comparableHtu('HTTPS://ID.Example.com:443/connect/token?x=1#y')).toBe('https://id.example.com/connect/token');
    expect(comparableHtu('https://id.example.com/connect/token/')).toBe('https://id.example.com/connect/token/');
    expect(comparableHtu('ftp://id.example.com/connect/token')).toBeUndefined();
    expect(comparableHtu('/connect/token')).toBeUndefined();
  });
});
