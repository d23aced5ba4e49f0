/**
 * Back-channel logout survives the node that ended the session (issue 37): two nodes behind one
 * issuer on one PostgreSQL schema. Node A, a real `svc start` process, ends a session, claims the
 * delivery and posts it to a client that does not answer; A is killed (SIGKILL) mid-delivery.
 * Its claim is a lease in the store: once the lease has run out, node B takes the delivery and
 * the client gets its logout token. Node B's clock is moved forward rather than the test waiting
 * out the lease.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { firstPartyPlugins, freePort, startServer, type TestServer } from '../support/server.js';
import { runSvc, until, type SvcProcess } from '../support/svc-process.js';
import { testKeyFiles } from '../support/test-keys.js';
import { Browser, redeemWeb, signInAndAuthorize, signInClients, signInConfig, webRequest } from '../support/sign-in.js';
import { eventually, logoutOutcomes, startLogoutReceiver, verifyLogoutToken, type LogoutReceiver } from '../support/logout-receiver.js';

const skip = await postgresSkipReason('back-channel logout on two nodes');

describe.skipIf(skip)('back-channel logout on two nodes sharing PostgreSQL', () => {
  let schema: TestSchema;
  let dir: string;
  let receiver: LogoutReceiver;
  let a: SvcProcess | undefined;
  let b: TestServer | undefined;
  let config: UserConfig;
  let issuer: string;
  let offset = 0;

  beforeAll(async () => {
    schema = await createTestSchema('backchannel_nodes');
    dir = mkdtempSync(join(tmpdir(), 'svc-bcl-nodes-'));
    receiver = await startLogoutReceiver();
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    const [web] = signInClients;
    config = {
      ...(await signInConfig({ clients: [{ ...web!, backchannelLogoutUri: `${receiver.url}/web/backchannel` }, ...signInClients.slice(1)] })),
      store: schema.url, pluginDirs: [firstPartyPlugins], packagePlugins: [], signing: { keys: testKeyFiles(dir) }, issuer,
      // A long time-out, so node A still holds the delivery when it is killed; its lease is the time-out and 30 s.
      backchannelLogout: { allowedAddresses: ['127.0.0.1'], pollInterval: 1, timeout: 60 },
    };
    const configFile = join(dir, 'svc.config.json');
    writeFileSync(configFile, JSON.stringify({ ...config, port }));
    a = runSvc(configFile);
    await until('node A listening', a, () => a!.logs().some((l) => l.msg === 'svc listening'));
  }, 150_000);
  afterAll(async () => {
    a?.proc.kill('SIGKILL');
    await b?.close();
    await receiver?.close();
    await schema?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('delivers at node B what node A claimed and died with, once A\'s lease has run out', async () => {
    const nodeA = { url: issuer } as TestServer;
    const browser = new Browser(issuer);
    const flow = webRequest();
    const idToken = (await redeemWeb(nodeA, (await signInAndAuthorize(nodeA, browser, flow.params)).searchParams.get('code')!, flow.verifier)).body.id_token as string;

    receiver.hangNext(1);
    expect((await browser.get(`/connect/endsession?${new URLSearchParams({ id_token_hint: idToken })}`)).status).toBe(200);
    // A claimed it and is posting; the client does not answer; A dies.
    await receiver.arrivals(1);
    a!.proc.kill('SIGKILL');
    await a!.exited;
    const [row] = await schema.query<{ client_id: string; attempts: number; due_at: string; claim: string | null }>('select client_id, attempts, due_at, claim from logout_deliveries');
    expect(row).toMatchObject({ client_id: 'web', attempts: 1, claim: expect.any(String) });
    expect(Number(row!.due_at)).toBeGreaterThan(Date.now());

    // Node B starts while A's lease holds: it leaves the delivery alone.
    b = await startServer(config, { clock: { now: () => Date.now() + offset } });
    // B looks at the queue when it starts and every second: give it a look or two.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received).toHaveLength(1);
    expect(logoutOutcomes(b.logs)).toEqual([]);

    // The lease runs out (B's clock moves past it): B's next look takes the delivery.
    offset = Number(row!.due_at) - Date.now() + 1000;
    await eventually('node B delivering', () => logoutOutcomes(b!.logs).includes('web #2 delivered'));
    expect(receiver.received).toHaveLength(2);
    const { sid, sub } = decodeJwt(idToken);
    // Verified as the client does: A's URL is the issuer, the keys are the issuer's (served by B now), at B's time.
    const payload = await verifyLogoutToken(receiver.received[1]!.token, issuer, 'web', { keysAt: b.url, currentDate: new Date(Date.now() + offset) });
    expect(payload).toMatchObject({ sid, sub });
    expect(await schema.query('select * from logout_deliveries')).toEqual([]);
  }, 150_000);
});
