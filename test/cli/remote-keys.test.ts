/**
 * `svc keys rotate|retire` (issue 39), on the database and through a running service's admin API
 * (`svc --server`): the same table of the new keys, the same line for a retired key, the same
 * refusal; through the API the service publishes or drops the key at once (its JWKS says so).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminService, type AdminService } from '../support/admin-service.js';
import { runCliWith } from '../support/svc-process.js';

let service: AdminService;

beforeAll(async () => {
  service = await startAdminService({ name: 'remote-keys' });
});
afterAll(async () => {
  await service?.close();
});

const local = (...args: string[]) => runCliWith({}, 'keys', ...args, '--config', service.configFile);
const remote = (...args: string[]) => service.remote('keys', ...args);
async function published(): Promise<string[]> {
  const { jwks_uri } = (await (await fetch(`${service.server.url}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
  return ((await (await fetch(jwks_uri)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
}
const rows = (text: string) => text.trim().split('\n').map((line) => line.trim().split(/ {2,}/));
/** A row without its kid and times: what two rotations share. */
const shape = (row: string[]) => [row[1], row.at(-1)];

describe('svc keys rotate and retire, on the database and through --server', () => {
  it('rotates: the same table of the new key, published at once through the API', async () => {
    const before = await published();
    const [l, r] = [await local('rotate'), await remote('rotate')];
    expect(l.code, l.stderr).toBe(0);
    expect(r.code, r.stderr).toBe(0);
    expect(rows(r.stdout)[0]).toEqual(['kid', 'alg', 'created', 'activates', 'retires', 'protection']);
    expect(rows(r.stdout)[0]).toEqual(rows(l.stdout)[0]);
    expect(rows(r.stdout).slice(1).map(shape)).toEqual(rows(l.stdout).slice(1).map(shape));
    const made = rows(r.stdout)[1]![0]!;
    expect(before).not.toContain(made);
    expect(await published()).toContain(made);
    // Both show up in the list, on the database and through the API alike.
    const listed = await local('list');
    expect(listed.stdout).toContain(made);
    expect(listed.stdout).toContain(rows(l.stdout)[1]![0]!);
    expect((await remote('list')).stdout).toBe(listed.stdout);
  });

  it('retires a key: out of the JWKS at once through the API; the same line and refusal on the database', async () => {
    const keys = rows((await local('list')).stdout).slice(1).map((row) => row[0]!);
    expect(keys.length).toBeGreaterThanOrEqual(3);
    const [viaApi, viaDb] = [keys.at(-1)!, keys.at(-2)!];
    expect(await published()).toContain(viaApi);
    const r = await remote('retire', viaApi);
    expect(r).toMatchObject({ code: 0, stdout: `signing key ${viaApi} retired: out of the JWKS, tokens it signed no longer verify.\n` });
    expect(await published()).not.toContain(viaApi);
    const l = await local('retire', viaDb);
    expect(l).toMatchObject({ code: 0, stdout: `signing key ${viaDb} retired: out of the JWKS, tokens it signed no longer verify.\n` });
    expect(rows((await local('list')).stdout).find((row) => row[0] === viaDb)![4]).not.toBe('-');

    for (const run of [await remote('retire', 'nosuch'), await local('retire', 'nosuch')]) expect(run).toMatchObject({ code: 1, stderr: 'svc: Signing key "nosuch" does not exist.\n' });
    const wrongAlg = [await remote('rotate', '--alg', 'HS256'), await local('rotate', '--alg', 'HS256')];
    expect(wrongAlg[0]!.code).toBe(1);
    expect(wrongAlg[0]!.stderr).toBe(wrongAlg[1]!.stderr);
    expect(wrongAlg[0]!.stderr).toMatch(/^svc: The store holds no key of HS256: /);
    expect((await remote('retire')).stderr).toBe('svc: svc keys retire needs <kid> (svc keys list shows them).\n');
  });
});
