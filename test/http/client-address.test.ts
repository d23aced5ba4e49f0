/** The client's address and scheme from a trusted proxy's forwarding header, and from no one else. */
import { describe, expect, it } from 'vitest';
import { clientOriginResolver, type ForwardedHeader } from '../../src/http/client-address.js';

const resolver = (forwardedHeader: ForwardedHeader = 'x-forwarded-for') =>
  clientOriginResolver({ trustedProxies: ['10.0.0.0/8', '192.0.2.1', 'fd00::/8'], forwardedHeader });
const headers = (h: Record<string, string>) => (name: string): string => h[name] ?? '';

describe('the client address', () => {
  it('is the socket address when the peer is not a trusted proxy, whatever the headers say', () => {
    const origin = resolver()('203.0.113.9', headers({ 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' }));
    expect(origin).toEqual({ address: '203.0.113.9', forwardedHttps: false, viaTrustedProxy: false });
  });

  it('is one address for an IPv4 peer whichever socket family it came in on', () => {
    expect(resolver()('::ffff:203.0.113.9', headers({})).address).toBe('203.0.113.9');
  });

  it('is the right-most X-Forwarded-For hop that is not a trusted proxy (IPv4 and IPv6 ranges)', () => {
    const origin = resolver()('::ffff:10.1.2.3', headers({ 'x-forwarded-for': '6.6.6.6, 198.51.100.7, fd00::5, 10.0.0.9', 'x-forwarded-proto': 'https' }));
    expect(origin).toEqual({ address: '198.51.100.7', forwardedHttps: true, viaTrustedProxy: true });
  });

  it('is the left-most hop when every hop is a trusted proxy, and the proxy itself without a header', () => {
    expect(resolver()('10.0.0.1', headers({ 'x-forwarded-for': '10.0.0.2, 192.0.2.1' })).address).toBe('10.0.0.2');
    expect(resolver()('10.0.0.1', headers({})).address).toBe('10.0.0.1');
  });

  it('stops at a hop it cannot read: what lies left of it is the client talking', () => {
    expect(resolver()('10.0.0.1', headers({ 'x-forwarded-for': '6.6.6.6, garbage, 10.0.0.2' })).address).toBe('10.0.0.2');
  });

  it('reads RFC 7239 Forwarded elements with quoted IPv6 addresses and ports, and only that header when told', () => {
    const origin = resolver('forwarded')('fd00::1', headers({
      forwarded: 'for=6.6.6.6, for="[2001:db8:cafe::17]:4711";proto=http, for="10.0.0.2:80";proto=https',
      'x-forwarded-for': '198.51.100.1',
    }));
    expect(origin).toEqual({ address: '2001:db8:cafe::17', forwardedHttps: true, viaTrustedProxy: true });
    expect(resolver('forwarded')('10.0.0.1', headers({ forwarded: 'for=_hidden, for=198.51.100.3' })).address).toBe('198.51.100.3');
    expect(resolver('forwarded')('10.0.0.1', headers({ forwarded: 'for=198.51.100.3, for=unknown' })).address).toBe('10.0.0.1');
  });

  it('ignores X-Forwarded-For when the proxies write Forwarded, and the other way round', () => {
    expect(resolver('forwarded')('10.0.0.1', headers({ 'x-forwarded-for': '198.51.100.1' })).address).toBe('10.0.0.1');
    expect(resolver()('10.0.0.1', headers({ forwarded: 'for=198.51.100.1' })).address).toBe('10.0.0.1');
  });
});
