/**
 * A plugin folder outside the repository, with its own package.json (`"svc": "file:..."`) and a
 * plain tsconfig, type-checks against the published declarations (package.json `exports`) and
 * runs. `node_modules/svc` is linked here exactly as npm links a `file:` dependency.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService } from 'svc/sdk/testing';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const tsc = (project: string) =>
  spawnSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', project], { encoding: 'utf8', cwd: repo });

let root: string;
let plugin: string;
beforeAll(() => {
  // The declarations as `npm ci` (prepare) builds them, again: the sources may have changed since.
  const built = spawnSync(process.execPath, [join(repo, 'bin/build-types.mjs')], { encoding: 'utf8', cwd: repo });
  expect(built.stdout + built.stderr).toBe('');
  root = mkdtempSync(join(tmpdir(), 'svc-external-'));
  plugin = join(root, 'shout');
  cpSync(fileURLToPath(new URL('../fixtures/external-plugin/shout', import.meta.url)), plugin, { recursive: true });
  mkdirSync(join(plugin, 'node_modules/@types'), { recursive: true });
  symlinkSync(repo, join(plugin, 'node_modules/svc'), 'dir');
  symlinkSync(join(repo, 'node_modules/@types/node'), join(plugin, 'node_modules/@types/node'), 'dir');
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a plugin folder outside the repository', () => {
  it('type-checks with its own plain tsconfig', () => {
    const result = tsc(plugin);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  }, 60_000);

  it('is checked against the SDK: a wrong contract does not type-check', () => {
    writeFileSync(join(plugin, 'wrong.ts'), "import type { GrantSuccess } from 'svc/sdk';\nexport const s: GrantSuccess = { subject: 'alice' };\n");
    const result = tsc(plugin);
    rmSync(join(plugin, 'wrong.ts'));
    expect(result.status).not.toBe(0);
    expect(result.stdout).toMatch(/wrong\.ts\(2,34\): error TS2322: Type 'string' is not assignable to type 'GrantSubject'/);
  }, 60_000);

  it('finds no `any` in the published SDK declarations', () => {
    const dir = join(repo, 'types/sdk');
    const code = (f: string) => readFileSync(join(dir, f), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    const withAny = readdirSync(dir).filter((f) => f.endsWith('.d.ts') && /\bany\b/.test(code(f)));
    expect(withAny).toEqual([]);
  });

  it('runs: the service loads it and its grant answers', async () => {
    const svc = await startTestService({
      pluginDirs: [root],
      config: {
        plugins: { shout: { suffix: '?' } },
        apiScopes: [{ name: 'api' }],
        apiResources: [{ name: 'api', scopes: ['api'] }],
        clients: [{ clientId: 'app', requireClientSecret: false, allowedGrantTypes: ['urn:example:shout'], allowedScopes: ['api'] }],
      },
    });
    try {
      const ok = await svc.token({ grant_type: 'urn:example:shout', client_id: 'app', word: 'hello' });
      expect(ok.status).toBe(200);
      const claims = JSON.parse(Buffer.from(String(ok.body!.access_token).split('.')[1]!, 'base64url').toString()) as { sub: string };
      expect(claims.sub).toBe('HELLO?');
      const long = await svc.token({ grant_type: 'urn:example:shout', client_id: 'app', word: 'x'.repeat(21) });
      expect(long.body).toEqual({ error: 'invalid_request', error_description: 'Parameter word is too long (at most 20 characters).' });
    } finally {
      await svc.close();
    }
  });
});
