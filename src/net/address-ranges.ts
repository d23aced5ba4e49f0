/**
 * Addresses and CIDR ranges (IPv4 and IPv6) as `trustedProxies` lists them, parsed once at
 * start-up into node's `BlockList`, which matches either family in one call.
 */
import { BlockList, isIP } from 'node:net';

export interface AddressRange {
  readonly address: string;
  readonly family: 'ipv4' | 'ipv6';
  /** Prefix length; the whole address (32 or 128) for a single address. */
  readonly prefix: number;
}

/** `"10.0.0.0/8"`, `"192.0.2.7"`, `"fd00::/8"`, `"::1"`; `undefined` when it is none of these. */
export function parseAddressRange(entry: string): AddressRange | undefined {
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  if (slash === -1) return { address, family: version === 4 ? 'ipv4' : 'ipv6', prefix: bits };
  const text = entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(text) || Number(text) > bits) return undefined;
  return { address, family: version === 4 ? 'ipv4' : 'ipv6', prefix: Number(text) };
}

/**
 * Node reports an IPv4 peer of a dual-stack socket as `::ffff:192.0.2.7`: one client must have
 * one address, whichever way it came in, or every limit keyed by it could be doubled.
 */
export function canonicalAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address.toLowerCase();
}

export interface AddressMatcher {
  /** True when the (canonical) address lies in one of the ranges. */
  has(address: string): boolean;
}

export function addressMatcher(entries: readonly string[]): AddressMatcher {
  const list = new BlockList();
  for (const entry of entries) {
    const range = parseAddressRange(entry);
    // Validation refused anything else at start-up.
    if (!range) throw new Error(`not an address or CIDR range: ${entry}`);
    if (range.prefix === (range.family === 'ipv4' ? 32 : 128)) list.addAddress(range.address, range.family);
    else list.addSubnet(range.address, range.prefix, range.family);
  }
  const empty = entries.length === 0;
  return {
    has(address) {
      if (empty) return false;
      const version = isIP(address);
      return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
