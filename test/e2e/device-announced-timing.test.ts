/**
 * The device authorization response announces the client's own `interval` and `expires_in`
 * (`pollingInterval`, `deviceCodeLifetime`), and those are what the token endpoint enforces
 * (RFC 8628 §3.2, §3.5; issue 6), not the 5 s and 300 s defaults.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startServer, type TestServer } from '../support/server.js';
import { codesFor, deviceConfig, manualClock, poll } from '../device/helpers.js';

const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
let server: TestServer;
beforeAll(async () => {
  server = await startServer(await deviceConfig(), { clock });
});
afterAll(() => server.close());

// `cli`: pollingInterval 2, deviceCodeLifetime 600 (test/device/helpers.ts).
const cliCodes = () => codesFor(server, { client_id: 'cli', client_secret: 'cli-secret' });
const pollAsCli = (deviceCode: string) => poll(server, deviceCode, {}, { authorization: basic('cli', 'cli-secret') });
const pending = { error: 'authorization_pending', error_description: 'The user has not yet approved the request.' };

describe('a client with its own pollingInterval', () => {
  it('announces it and may poll that often, though faster than the 5 s default', async () => {
    const codes = await cliCodes();
    expect(codes.interval).toBe(2);
    for (let i = 0; i < 4; i++) {
      expect((await pollAsCli(codes.device_code)).body).toEqual(pending);
      clock.advance(2);
    }
  });

  it('gets slow_down sooner than it, and then must wait it plus 5 s', async () => {
    const codes = await cliCodes();
    expect((await pollAsCli(codes.device_code)).body).toEqual(pending);
    clock.advance(1);
    const early = await pollAsCli(codes.device_code);
    expect(early.status).toBe(400);
    expect(early.body).toEqual({ error: 'slow_down', error_description: 'Polling too fast; wait at least 7 seconds between requests.' });
    clock.advance(6);
    expect((await pollAsCli(codes.device_code)).body.error).toBe('slow_down');
    clock.advance(12);
    expect((await pollAsCli(codes.device_code)).body).toEqual(pending);
  });
});

describe('a client with its own deviceCodeLifetime', () => {
  it('announces it, and its code lives that long, past the 300 s default', async () => {
    const codes = await cliCodes();
    expect(codes.expires_in).toBe(600);
    clock.advance(599);
    expect((await pollAsCli(codes.device_code)).body).toEqual(pending);
    clock.advance(2);
    const late = await pollAsCli(codes.device_code);
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ error: 'expired_token', error_description: 'The device code has expired.' });
  });
});
