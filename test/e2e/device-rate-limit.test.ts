/**
 * Wrong user codes are rate-limited per client address (RFC 8628 §5.1), in the store, so the
 * count holds across nodes; the page says when to try again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { codesFor, deviceConfig, manualClock, PageClient } from '../device/helpers.js';

const clock = manualClock(Date.parse('2030-01-01T12:00:00Z'));
const store = createMemoryStore(clock);
let nodeA: TestServer;
let nodeB: TestServer;

beforeAll(async () => {
  const config = await deviceConfig({ deviceFlow: { maxFailedAttempts: 3, failedAttemptsWindow: 600 } });
  // Two nodes, one store.
  nodeA = await startServer(config, { clock, store });
  nodeB = await startServer(config, { clock, store });
});
afterAll(async () => {
  await nodeA.close();
  await nodeB.close();
});

async function typeCode(node: TestServer, code: string) {
  const page = new PageClient(node.url);
  return page.submit(await page.get('/device'), { user_code: code });
}

describe('wrong user codes', () => {
  it('blocks the address after maxFailedAttempts, across nodes, and says when to try again', async () => {
    const codes = await codesFor(nodeA);
    expect((await typeCode(nodeA, 'BBBB-BBBB')).status).toBe(400);
    expect((await typeCode(nodeB, 'CCCC-CCCC')).status).toBe(400);
    // A right code in between neither counts nor resets.
    const right = await typeCode(nodeB, codes.user_code);
    expect(right.status).toBe(200);
    expect(right.html).toContain('<h1>Sign in</h1>');

    const third = await typeCode(nodeA, 'DDDD-DDDD');
    expect(third.status).toBe(429);
    expect(third.html).toContain('Too many wrong codes were entered from your network. Try again in 10 minutes (after 12:10 UTC).');
    expect(third.headers.get('retry-after')).toBe('600');

    // Now even the right code is refused, on either node: guessing cannot continue.
    clock.advance(60);
    const blocked = await typeCode(nodeB, codes.user_code);
    expect(blocked.status).toBe(429);
    expect(blocked.html).toContain('Try again in 9 minutes (after 12:10 UTC).');
    expect(blocked.html).not.toContain(codes.user_code);
  });

  it('lifts the block when the window is over', async () => {
    clock.advance(540);
    const codes = await codesFor(nodeA);
    const res = await typeCode(nodeA, codes.user_code);
    expect(res.status).toBe(200);
    expect(res.html).toContain('<h1>Sign in</h1>');
    // ... with a fresh count.
    expect((await typeCode(nodeA, 'BBBB-BBBB')).status).toBe(400);
    expect((await typeCode(nodeA, 'BBBB-BBBB')).status).toBe(400);
    expect((await typeCode(nodeA, 'BBBB-BBBB')).status).toBe(429);
  });

  it('counts concurrent wrong codes exactly', async () => {
    clock.advance(600);
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => typeCode(i % 2 ? nodeA : nodeB, 'FFFF-FFFF')));
    expect(results.filter((r) => r.status === 400)).toHaveLength(2);
    expect(results.filter((r) => r.status === 429)).toHaveLength(4);
  });
});
