/**
 * docs/guides/passkeys-and-one-time-codes.md, "Operators: a lost phone": the commands run
 * verbatim with the CLI against a SQLite file the service reads, for a user with codes on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyProtector } from '../../src/oauth/keys/key-protection.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { createSecondFactorService } from '../../src/second-factor/second-factors.js';
import { docSection, runReadmeScript, shellBlocks } from '../support/readme.js';
import { startServer, type TestServer } from '../support/server.js';
import { authorizeUrl, Browser, signInConfig, webRequest } from '../support/sign-in.js';
import { testKeyFiles } from '../support/test-keys.js';
import { fromBase32, totpAt } from '../support/totp.js';

const guide = 'docs/guides/passkeys-and-one-time-codes.md';
const dir = mkdtempSync(join(tmpdir(), 'svc-guide-codes-'));
let server: TestServer;

beforeAll(async () => {
  const config = await signInConfig({ store: `sqlite:${join(dir, 'svc.db')}`, signing: { keys: testKeyFiles(dir) } });
  server = await startServer(config);
  writeFileSync(join(dir, '.svcrc.json'), JSON.stringify({ ...config, issuer: server.url }));
  await server.app.store.users.add({
    subjectId: 'sub-grace', username: 'grace', email: undefined, emailVerified: false, claims: {}, disabled: false,
    passwordHash: await hashPassword('grace-password-1', { ln: 4, r: 8, p: 1 }), createdAt: Date.now(),
  });
  const factors = createSecondFactorService({
    factors: () => server.app.store.factors, protector: createKeyProtector([]), issuer: server.url, clock: { now: () => Date.now() },
    throttle: { attempt: async (_name, _address, check, accepted) => { const result = await check(); return { outcome: accepted(result) ? 'accepted' : 'rejected', result }; } },
  });
  const key = fromBase32((await factors.startEnrolment('sub-grace', 'grace'))!.secret);
  expect((await factors.confirmEnrolment('sub-grace', totpAt(key, Date.now()), undefined, 'test')).outcome).toBe('accepted');
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the guide "Passkeys and one-time codes"', () => {
  it('"Operators: a lost phone" shows the factors, removes the codes, and the next sign-in asks for none', async () => {
    const [script] = shellBlocks(docSection(guide, '## Operators: a lost phone', '## Events'));
    const lines = (await runReadmeScript(script!, { url: server.url, cwd: dir })).trim().split('\n');
    expect(lines[0]).toMatch(/^factor +state +since$/);
    expect(lines[1]).toMatch(/^totp +active +\d{4}-\d\d-\d\dT/);
    expect(lines[2]).toMatch(/^recovery codes +10 of 10 left +\d{4}-/);
    expect(lines[3]).toBe('one-time codes of "grace" removed (1 record).');
    expect(JSON.parse(lines[4]!)).toMatchObject({ username: 'grace', totp: 'none', recoveryCodesLeft: 10 });
    expect(lines).toHaveLength(5);
    const browser = new Browser(server.url);
    const signIn = await browser.get(authorizeUrl(server, webRequest().params));
    expect((await browser.submit(signIn, { username: 'grace', password: 'grace-password-1' })).status).toBe(303);
  }, 60_000);
});
