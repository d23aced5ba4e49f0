/**
 * `svc dpop-proof` (issue 17): the proof a README reader makes for curl is one the service
 * accepts, at the token endpoint and, with `--token`, at UserInfo.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { runCli as svc } from '../support/svc-process.js';
import { alice, auth, baseConfig } from '../fixtures/grant-plugins/world.js';

let dir: string;
let keyFile: string;
let server: TestServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-dpop-proof-'));
  keyFile = join(dir, 'dpop.pem');
  writeFileSync(keyFile, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }));
  server = await startServer(baseConfig);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('svc dpop-proof', () => {
  it('prints a proof the token endpoint and UserInfo accept', async () => {
    const tokenUrl = `${server.url}/connect/token`;
    const run = await svc('dpop-proof', '--key', keyFile, '--htu', tokenUrl);
    expect(run.code).toBe(0);
    const proof = run.stdout.trim();
    expect(decodeProtectedHeader(proof)).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256' } });
    expect(decodeProtectedHeader(proof).jwk).not.toHaveProperty('d');
    const res = await postForm(tokenUrl, { grant_type: 'password', username: alice.username, password: alice.password, scope: 'openid' }, { ...auth('web'), DPoP: proof });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');

    const token = res.body.access_token as string;
    const userinfoUrl = `${server.url}/connect/userinfo`;
    const forUserinfo = await svc('dpop-proof', '--key', keyFile, '--htu', userinfoUrl, '--htm', 'GET', '--token', token);
    expect(decodeJwt(forUserinfo.stdout.trim())).toMatchObject({ htm: 'GET', htu: userinfoUrl, ath: expect.any(String) });
    const info = await fetch(userinfoUrl, { headers: { authorization: `DPoP ${token}`, DPoP: forUserinfo.stdout.trim() } });
    expect(info.status).toBe(200);
  });

  it('says what it needs', async () => {
    expect(await svc('dpop-proof', '--key', keyFile)).toEqual({ code: 1, stdout: '', stderr: 'svc: dpop-proof needs --key <private-key.pem> and --htu <endpoint URL>\n' });
    const bad = await svc('dpop-proof', '--key', keyFile, '--htu', 'connect/token');
    expect(bad).toEqual({ code: 1, stdout: '', stderr: 'svc: --htu must be an absolute URL such as http://localhost:5000/connect/token, got "connect/token".\n' });
  });
});
