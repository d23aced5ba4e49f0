/**
 * Starting device authorizations is limited per address and per client (each start is a stored
 * flow): past the limit, 429 with Retry-After until the window ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceConfig, manualClock } from '../device/helpers.js';
import { postFrom } from '../support/raw-http.js';
import { basic, startServer, type TestServer } from '../support/server.js';

const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
let server: TestServer;
beforeAll(async () => {
  server = await startServer(
    await deviceConfig({ deviceFlow: { maxAuthorizationsPerAddress: 3, maxAuthorizationsPerClient: 5, authorizationsWindow: 60 } }),
    { clock },
  );
});
afterAll(() => server.close());

const start = (from: string, clientId = 'tv') =>
  postFrom(`${server.url}/connect/deviceauthorization`, from, { client_id: clientId, scope: 'api1.read' });

const tooMany = (seconds: number) => ({
  error: 'temporarily_unavailable',
  error_description: `Too many device authorizations; retry after ${seconds} seconds.`,
});

describe('device authorization rate limit', () => {
  it('answers 429 with Retry-After to an address that starts too many', async () => {
    for (let i = 0; i < 3; i++) expect((await start('127.0.0.2')).status).toBe(200);
    const flood = await start('127.0.0.2');
    expect(flood.status).toBe(429);
    expect(flood.headers['retry-after']).toBe('60');
    expect(flood.body).toEqual(tooMany(60));
    // The address is limited whichever client it names.
    const other = await postFrom(`${server.url}/connect/deviceauthorization`, '127.0.0.2', { scope: 'api1.read' }, { authorization: basic('cli', 'cli-secret') });
    expect(other.status).toBe(429);
  });

  it('answers 429 to a client that starts too many from many addresses', async () => {
    expect((await start('127.0.0.3')).status).toBe(200);
    expect((await start('127.0.0.4')).status).toBe(200);
    const flood = await start('127.0.0.5');
    expect(flood.status).toBe(429);
    expect(flood.body).toEqual(tooMany(60));
    // Another client from a fresh address is not affected.
    const cli = await postFrom(`${server.url}/connect/deviceauthorization`, '127.0.0.6', { scope: 'api1.read' }, { authorization: basic('cli', 'cli-secret') });
    expect(cli.status).toBe(200);
  });

  it('lets them start again when the window ends', async () => {
    clock.advance(60);
    expect((await start('127.0.0.2')).status).toBe(200);
  });
});
