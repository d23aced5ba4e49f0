import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from './free-port.js';

const ephemeralStart = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return undefined;
  }
})();

describe('freePort', () => {
  it.runIf(ephemeralStart !== undefined && ephemeralStart > 12_000)('picks ports below the range outgoing connections take their local ports from', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralStart!);
    }
  });
});
