import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// The first port handed out is one this test holds, as a port another test process took
// between the probe and the bind would be; later ones are really free.
const held: { server?: Server; port?: number; handedOut: number[] } = { handedOut: [] };
vi.mock('../../src/testing/free-port.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/testing/free-port.js')>();
  return {
    freePort: async () => {
      const port = held.handedOut.length === 0 ? held.port! : await real.freePort();
      held.handedOut.push(port);
      return port;
    },
  };
});

const { startServer } = await import('./server.js');

describe('startServer', () => {
  beforeAll(async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    held.server = server;
    held.port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => held.server!.close(() => resolve())));

  it('picks another port when the probed one is taken before the service binds it', async () => {
    const server = await startServer({ clients: [] });
    try {
      expect(held.handedOut).toHaveLength(2);
      expect(held.handedOut[0]).toBe(held.port);
      expect(server.url).toBe(`http://127.0.0.1:${held.handedOut[1]}`);
      const discovery = await fetch(`${server.url}/.well-known/openid-configuration`);
      expect(discovery.status).toBe(200);
      expect(((await discovery.json()) as { issuer: string }).issuer).toBe(server.url);
    } finally {
      await server.close();
    }
  });

  it('does not retry a port the caller named', async () => {
    await expect(startServer({ clients: [], port: held.port! })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
