/**
 * A session the operator ends is told too (issue 37): `svc users disable` ends the user's
 * sign-in sessions and queues a logout token, in the store, for every client that got a code in
 * them; the running service's worker posts it. A client the user never used is told nothing.
 * The commands are docs/guides/logout.md's "Try it", run verbatim (with the test server's URL).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { startServer, type TestServer } from '../support/server.js';
import { docSection, runReadmeScript, shellBlocks } from '../support/readme.js';
import { testKeyFiles } from '../support/test-keys.js';
import { Browser, redeemWeb, signInAndAuthorize, signInClients, signInConfig, webRequest } from '../support/sign-in.js';
import { eventually, logoutOutcomes, startLogoutReceiver, verifyLogoutToken, type LogoutReceiver } from '../support/logout-receiver.js';

const erin = { username: 'erin', password: 'erin-password-1' };
const guide = 'docs/guides/logout.md';

describe('svc users disable and back-channel logout', () => {
  let dir: string;
  let receiver: LogoutReceiver;
  let server: TestServer;
  let configFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-bcl-users-'));
    receiver = await startLogoutReceiver();
    const [web] = signInClients;
    const config: UserConfig = await signInConfig({
      store: `sqlite:${join(dir, 'svc.db')}`, signing: { keys: testKeyFiles(dir) },
      backchannelLogout: { allowedAddresses: ['127.0.0.1'], pollInterval: 1 },
      clients: [
        { ...web!, backchannelLogoutUri: `${receiver.url}/web/backchannel` },
        { ...web!, clientId: 'shop', clientSecrets: [{ value: hashSecret('shop-secret') }], backchannelLogoutUri: `${receiver.url}/shop/backchannel` },
        ...signInClients.slice(1),
      ],
    });
    server = await startServer(config);
    // Where `npx svc` run in `dir` finds it.
    configFile = join(dir, '.svcrc.json');
    writeFileSync(configFile, JSON.stringify({ ...config, issuer: server.url }));
    await server.app.store.users.add({
      subjectId: 'sub-erin', username: erin.username, email: undefined, emailVerified: false, claims: {}, disabled: false,
      passwordHash: await hashPassword(erin.password, { ln: 4, r: 8, p: 1 }), createdAt: Date.now(),
    });
  });
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('tells each client that got a code in the user\'s session, and no other', async () => {
    const browser = new Browser(server.url);
    const flow = webRequest();
    const idToken = (await redeemWeb(server, (await signInAndAuthorize(server, browser, flow.params, erin)).searchParams.get('code')!, flow.verifier)).body.id_token as string;

    const [script] = shellBlocks(docSection(guide, '## Try it'));
    const lines = (await runReadmeScript(script!, { url: server.url, cwd: dir })).trim().split('\n');
    expect(JSON.parse(lines[0]!)).toEqual({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
    // The session, the code's refresh token family... as the guide's sample output says.
    expect(lines[1]).toBe(docSection(guide, '## Try it').split('\n').find((l) => l.startsWith('user "erin"')));
    expect(lines).toHaveLength(2);

    await eventually('the logout token', () => logoutOutcomes(server.logs).includes('web #1 delivered'));
    expect(receiver.received.map((r) => r.path)).toEqual(['/web/backchannel']);
    const { sid } = decodeJwt(idToken);
    expect(await verifyLogoutToken(receiver.received[0]!.token, server.url, 'web')).toMatchObject({ sub: 'sub-erin', sid });
    expect(logoutOutcomes(server.logs)).toEqual(['web #1 delivered']);
  }, 150_000);

  it('configures as the guide says', () => {
    const config = docSection(guide, '## Configure a client', '## What is sent');
    expect(config).toContain("backchannelLogoutUri: 'https://web.example.com/backchannel-logout'");
    expect(config).toContain('backchannelLogoutSessionRequired: true');
    expect(docSection(guide, '## The address rules', '## Try it')).toContain("backchannelLogout: { allowedAddresses: ['10.0.0.0/8', '127.0.0.1'] }");
  });
});
