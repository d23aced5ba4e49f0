import { describe, expect, it, vi } from 'vitest';
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

  it.runIf(listenerPorts !== undefined)('never picks a port fetch refuses (the Fetch Standard\'s bad port 10080)', async () => {
    const { low, high } = listenerPorts!;
    const at = (port: number) => (port - low + 0.5) / (high - low);
    const random = vi.spyOn(Math, 'random').mockReturnValueOnce(at(10_080)).mockReturnValueOnce(at(10_081));
    try {
      const port = await freePort();
      expect(port).not.toBe(10_080);
    } finally {
      random.mockRestore();
    }
  });
});
