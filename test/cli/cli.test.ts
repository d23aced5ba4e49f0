/**
 * The `svc` command, spawned as a user runs it (`node bin/svc.mjs`). Few tests: each spawn
 * costs a second or two.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { firstPartyPlugins } from '../support/server.js';
import { binSvc, runCliWith } from '../support/svc-process.js';
import { testKeyFiles } from '../support/test-keys.js';

const svc = (...args: string[]) => runCliWith({ script: binSvc }, ...args);

let dir: string;
let goodConfig: string;
let badConfig: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  // pluginDirs: ./plugins next to the config, holding a link to the package's shared-secret
  // (loaded once: it is the same folder as the package's own).
  mkdirSync(join(dir, 'plugins'));
  symlinkSync(join(firstPartyPlugins, 'shared-secret'), join(dir, 'plugins', 'shared-secret'), 'dir');
  const base = {
    store: 'memory',
    // The test keys: a command that builds the app (check-config, plugins) generates none.
    signing: { keys: testKeyFiles(dir) },
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
  };
  const m2m = { clientId: 'm2m', clientSecrets: [{ value: hashSecret('cli-secret') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] };
  goodConfig = join(dir, 'good.svc.json');
  badConfig = join(dir, 'bad.svc.json');
  writeFileSync(goodConfig, JSON.stringify({ ...base, clients: [m2m] }));
  writeFileSync(
    badConfig,
    JSON.stringify({
      ...base,
      colour: 'blue',
      clients: [m2m, { ...m2m, allowedScopes: ['api9.read'], clientSecrets: [{ value: hashSecret('x'), expiration: 'someday' }] }],
    }),
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('svc', () => {
  it('hash-secret prints the base64 SHA-256 of the secret', async () => {
    expect(await svc('hash-secret', 'secret')).toEqual({ code: 0, stdout: 'K7gNU3sdo+OL0wNhqoVWhr3g6s1xYv72ol/pe/Unols=\n', stderr: '' });
  });

  it('hash-password prints a PHC scrypt string that verifies', async () => {
    const run = await svc('hash-password', 'x-password');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$\S+\n$/);
    expect(await verifyPassword('x-password', run.stdout.trim())).toBe(true);
  });

  it('check-config exits non-zero and prints each problem naming its field', async () => {
    const run = await svc('check-config', '--config', badConfig);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    // It checks; it does not start anything, so it does not say "cannot start".
    expect(run.stderr.split('\n')[0]).toBe(`svc: ${badConfig}: 4 problems [CONFIG_INVALID]`);
    expect(run.stderr).not.toContain('cannot start');
    for (const line of [
      /^ {2}colour: unknown field \(known: /m,
      /^ {2}clients\[1\]\.clientSecrets\[0\]\.expiration: expected an ISO 8601 date-time/m,
      /^ {2}clients\[1\]\.allowedScopes\[0\]: unknown scope "api9\.read"/m,
      /^ {2}clients\[1\]\.clientId: duplicate clientId "m2m"$/m,
    ]) {
      expect(run.stderr).toMatch(line);
    }
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('check-config exits 0 for a good config', async () => {
    const run = await svc('check-config', '--config', goodConfig);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(`${goodConfig}: config ok (1 client, 8 plugins)\n`);
  });

  it('plugins lists shared-secret with its authentication methods and secret type', async () => {
    const run = await svc('plugins', '--config', goodConfig);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^shared-secret {2}\(.+shared-secret\)\n {2}authentication methods: client_secret_basic, client_secret_post\n {2}secret types: {11}SharedSecret\n/m);
    expect(run.stdout).toMatch(/^standard-grants {2}\(built-in\)\n {2}grant types: {12}client_credentials/m);
  });
});
