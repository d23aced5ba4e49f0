/**
 * The running service reports its expired-record backlog (issue 39): with metrics on, each sweep
 * sets `svc_store_expired_rows` per kind to what it found and adds what it deleted to
 * `svc_store_expired_rows_removed_total`; the next sweep, finding nothing, sets the kind to 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { postForm, startServer, type TestServer } from '../support/server.js';

let dir: string;
let server: TestServer;
let skipped = 0;
const clock = { now: () => Date.now() + skipped };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-backlog-'));
  server = await startServer(
    {
      issuer: 'https://svc.backlog.test',
      store: 'sqlite:./svc.db',
      cleanupInterval: 1,
      metrics: { enabled: true },
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [
        {
          clientId: 'ref-app',
          clientSecrets: [{ value: hashSecret('ref-secret') }],
          allowedGrantTypes: ['client_credentials'],
          allowedScopes: ['api1.read'],
          accessTokenType: 'reference',
          accessTokenLifetime: 60,
        },
      ],
    },
    { configDir: dir, clock },
  );
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function metrics(): Promise<string> {
  return (await fetch(`${server.url}/metrics`)).text();
}

async function until(check: (text: string) => boolean, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  let text = await metrics();
  while (!check(text) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    text = await metrics();
  }
  return text;
}

describe('the expired-record backlog metric', () => {
  it('shows what a sweep found by kind and counts what it removed', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials', client_id: 'ref-app', client_secret: 'ref-secret' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    // Ten minutes later the three tokens (60 s) have expired.
    skipped += 10 * 60_000;

    const found = await until((text) => /^svc_store_expired_rows\{kind="reference_token"\} 3$/m.test(text), 5_000);
    expect(found).toMatch(/^svc_store_expired_rows\{kind="reference_token"\} 3$/m);
    const after = await until((text) => /^svc_store_expired_rows\{kind="reference_token"\} 0$/m.test(text), 5_000);
    expect(after).toMatch(/^svc_store_expired_rows\{kind="reference_token"\} 0$/m);
    // The three tokens, and the leases (signing keys, the sweep's own) that expired in the same ten minutes.
    const removed = Number(/^svc_store_expired_rows_removed_total (\d+)$/m.exec(after)?.[1]);
    expect(removed).toBeGreaterThanOrEqual(3);
  });
});
