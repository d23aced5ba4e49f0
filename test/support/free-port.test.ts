import { describe, expect, it } from 'vitest';
import { freePort, listenerPorts } from '../../src/testing/free-port.js';

describe('freePort', () => {
  // Wherever the kernel's ephemeral range is known (Linux, CI included).
  it.runIf(listenerPorts !== undefined)('picks ports below the range outgoing connections take their local ports from', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(listenerPorts!.high);
    }
  });
});
