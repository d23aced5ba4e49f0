/** Issue 36: the addresses a fetch of somebody else's URL must not reach. */
import { describe, expect, it } from 'vitest';
import { isSpecialAddress } from '../../src/net/special-addresses.js';

describe('isSpecialAddress', () => {
  it.each([
    '127.0.0.1', '127.1.2.3', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1',
    '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', 'not-an-address',
  ])('%s is special', (address) => expect(isSpecialAddress(address)).toBe(true));

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => expect(isSpecialAddress(address)).toBe(false));
});
