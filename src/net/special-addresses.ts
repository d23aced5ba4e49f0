/**
 * Addresses a server-side fetch must not reach unless the operator says so (SSRF, RFC 9700 §4.x
 * and the client ID metadata document draft's security considerations): loopback, private,
 * link-local (the cloud metadata service at 169.254.169.254), shared, multicast, reserved and the
 * IPv6 forms that embed an IPv4 address (node's `BlockList` checks an IPv4-mapped address against
 * the IPv4 rules). Built once; `isSpecialAddress` is one `BlockList` check.
 */
import { BlockList, isIP } from 'node:net';
import { canonicalAddress } from './address-ranges.js';

const ipv4 = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const;
const ipv6 = [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32],
  ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const;

const special = new BlockList();
for (const [address, prefix] of ipv4) special.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of ipv6) special.addSubnet(address, prefix, 'ipv6');

/** True for an address no public service has (or an unparsable one). */
export function isSpecialAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  const version = isIP(canonical);
  if (version === 0) return true;
  return special.check(canonical, version === 4 ? 'ipv4' : 'ipv6');
}
