/**
 * The service as a package, the way a new team adopts it: `npm pack` of a clone, the tarball installed
 * into an empty folder (its dependencies from the registry or the npm cache), `npx svc init` for
 * a deployment kept in another folder (like /etc/svc), and `npx svc start --config` there: the
 * first-party plugins load from the installed package, the deployment's own plugins folder adds
 * its plugins, a client gets a token with the secret `svc init` printed, and the sign-in walk of
 * docs/guides/signing-users-in.md (as installed) runs verbatim with the values it printed.
 *
 * One pack and one install serve every case. The install skips install scripts: the only one is
 * better-sqlite3's native build (minutes of C compiling on a small machine), so the addon this
 * repository already built for this very Node is copied in instead.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { initValues } from '../support/init-output.js';
import { runReadmeScript, shellBlocks } from '../support/readme.js';
import { basic, freePort, postForm, repoRoot } from '../support/server.js';
import { spawnSvc, until, type SvcProcess } from '../support/svc-process.js';

interface Run { code: number; stdout: string; stderr: string }

const quietEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  for (const name of ['SVC_CONFIG', 'PORT', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_EXPORTER']) delete env[name];
  return env;
};

function run(command: string, args: string[], cwd: string, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: quietEnv(), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let root: string;
let tarball: string;
let app: string;
let deployment: string;
let init: Run;
/** The port the installed service listens on, once started. */
let servicePort: number | undefined;
const running: SvcProcess[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-package-'));
  // Packed from a copy of what a clone holds, so its build (dist/, types/) never writes into the
  // repository while other suites read it.
  const clone = join(root, 'clone');
  for (const entry of ['package.json', 'README.md', 'SECURITY.md', 'tsconfig.json', 'tsconfig.build.json', 'tsconfig.types.json', 'bin', 'src', 'plugins', 'docs']) {
    cpSync(join(repoRoot, entry), join(clone, entry), { recursive: true });
  }
  symlinkSync(join(repoRoot, 'node_modules'), join(clone, 'node_modules'), 'dir');
  const packed = await run('npm', ['pack', '--pack-destination', root], clone, 240_000);
  expect(packed.code, packed.stderr).toBe(0);
  tarball = join(root, packed.stdout.trim().split('\n').pop()!);
  app = join(root, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-token-service', private: true }));
  const installed = await run('npm', ['install', '--prefer-offline', '--ignore-scripts', tarball], app, 240_000);
  expect(installed.code, installed.stderr).toBe(0);
  const addon = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  mkdirSync(join(app, addon, '..'), { recursive: true });
  copyFileSync(join(repoRoot, addon), join(app, addon));
  deployment = join(root, 'etc', 'svc');
  init = await run('npx', ['svc', 'init', deployment], app);
}, 600_000);

afterAll(async () => {
  for (const svc of running) {
    // npx runs the service as its grandchild: stop the service itself, by the pid it logs.
    const pid = svc.logs().find((l) => typeof l.pid === 'number')?.pid as number | undefined;
    for (const target of [pid, svc.proc.pid]) {
      try {
        if (target) process.kill(target, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

const secretOf = (label: string): string => {
  const match = new RegExp(`^${label} secret:\\s+(\\S+)$`, 'm').exec(init.stdout);
  expect(match, init.stdout).not.toBeNull();
  return match![1]!;
};

describe('the packed tarball', () => {
  it('holds the compiled service, the SDK declarations and the first-party plugins, and nothing from test/ or src/', async () => {
    const listed = await run('tar', ['tzf', tarball], root);
    const files = listed.stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
    expect(files).toEqual(expect.arrayContaining([
      'package.json', 'README.md', 'bin/svc.mjs', 'dist/cli/main.js', 'dist/sdk/index.js', 'types/sdk/index.d.ts',
      'plugins/shared-secret/index.ts', 'plugins/private-key-jwt/index.ts', 'plugins/delegation/index.ts', 'plugins/token-exchange/index.ts',
      // The README's guides and references travel with it, so its links work where the package is read.
      'docs/guides/getting-started.md', 'docs/reference/endpoints.md', 'docs/config-reference.md', 'docs/cli-reference.md', 'docs/device-flow.png',
    ]));
    expect(files.filter((f) => f.startsWith('docs/bench/'))).toEqual([]);
    expect(files.filter((f) => /^(test|src|node_modules|data)\//.test(f) || f.endsWith('.test.ts') || f === 'svc.config.ts')).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'svc-token-service', 'package.json'), 'utf8')) as { private?: boolean; bin: Record<string, string> };
    expect(manifest.private).toBeUndefined();
    expect(manifest.bin).toEqual({ svc: 'bin/svc.mjs' });
  });
});

describe('npx svc init <folder>', () => {
  it('writes a starter config holding only hashes of the secrets it prints once, a private key file and an empty plugins folder', () => {
    expect(init.code, init.stderr).toBe(0);
    const clientSecret = secretOf('client "app"');
    const apiSecret = secretOf('API "api"');
    expect(clientSecret).toMatch(/^[\w-]{43}$/);
    // The default, --for both: the sign-in client and user too, their secret and password printed once.
    const { webappSecret, userPassword } = initValues(init.stdout);
    expect(webappSecret).toMatch(/^[\w-]{43}$/);
    expect(userPassword).toMatch(/^[\w-]{43}$/);
    expect(init.stdout).toContain(`Start the service:    npx svc start --config ${join(deployment, 'svc.config.ts')}`);
    const config = readFileSync(join(deployment, 'svc.config.ts'), 'utf8');
    expect(config).not.toContain(clientSecret);
    expect(config).not.toContain(apiSecret);
    expect(config).not.toContain(webappSecret);
    expect(config).not.toContain(userPassword);
    expect(config).toContain(`value: '${hashSecret(clientSecret)}'`);
    expect(config).toContain(`value: '${hashSecret(apiSecret)}'`);
    expect(config).toContain("import { defineConfig } from 'svc-token-service/config';");
    expect(statSync(join(deployment, 'keys', 'key-encryption-key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(deployment, 'keys', 'key-encryption-key'), 'utf8')).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    expect(readdirSync(join(deployment, 'plugins'))).toEqual([]);
  });

  it('refuses to write over an existing deployment and changes nothing', async () => {
    const before = readFileSync(join(deployment, 'svc.config.ts'), 'utf8');
    const again = await run('npx', ['svc', 'init', deployment], app);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain(
      `svc: ${join(deployment, 'svc.config.ts')}, ${join(deployment, 'plugins')}, ${join(deployment, 'keys', 'key-encryption-key')} already exist; svc init writes nothing over them. Choose an empty folder: svc init <folder>\n`,
    );
    expect(readFileSync(join(deployment, 'svc.config.ts'), 'utf8')).toBe(before);
  });
});

describe('npx svc start --config <a config outside the install>', () => {
  it('loads the first-party plugins from the package and issues a token for the client svc init made', async () => {
    const port = await freePort();
    const svc = spawnSvc('npx', ['svc', 'start', '--config', join(deployment, 'svc.config.ts'), '--port', String(port)], { cwd: app, env: quietEnv() });
    running.push(svc);
    await until('svc listening', svc, () => svc.logs().some((l) => l.msg === 'svc listening'), 60_000);
    servicePort = port;
    const packagePlugins = join(app, 'node_modules', 'svc-token-service', 'plugins');
    const loaded = svc.logs().filter((l) => l.msg === 'plugin.loaded').map((l) => {
      const { plugin, source } = l.event as { plugin: string; source: string };
      return `${plugin} from ${source}`;
    });
    expect(loaded).toEqual(expect.arrayContaining(['shared-secret', 'private-key-jwt', 'delegation', 'token-exchange', 'mutual-tls'].map((p) => `${p} from ${join(packagePlugins, p)}`)));

    const issuer = `http://localhost:${port}`;
    const token = await postForm(`http://127.0.0.1:${port}/connect/token`, { grant_type: 'client_credentials', scope: 'api.read' }, { authorization: basic('app', secretOf('client "app"')) });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'api.read' });
    const introspected = await postForm(`http://127.0.0.1:${port}/connect/introspect`, { token: String(token.body.access_token) }, { authorization: basic('api', secretOf('API "api"')) });
    expect(introspected.body).toMatchObject({ active: true, client_id: 'app', iss: issuer, aud: 'api' });
    // The signing keys it made are sealed with the key file svc init wrote.
    expect(svc.output()).not.toContain('signing keys are stored unencrypted');
    expect(existsSync(join(deployment, 'data', 'svc.db'))).toBe(true);
  });

  it('runs the sign-in walk of the installed docs/guides/signing-users-in.md verbatim with the values svc init printed exported', async () => {
    expect(servicePort, 'the service of the test above').toBeDefined();
    const guide = readFileSync(join(app, 'node_modules', 'svc-token-service', 'docs', 'guides', 'signing-users-in.md'), 'utf8');
    const walk = shellBlocks(guide.slice(guide.indexOf('## Sign in a user')))[0]!;
    const workdir = join(root, 'walk');
    mkdirSync(workdir);
    const stdout = await runReadmeScript(walk, { url: `http://localhost:${servicePort}`, cwd: workdir, env: initValues(init.stdout).exported });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^http://localhost:8080/callback\\?code=[\\w-]+&state=af0ifjsldkj&iss=http%3A%2F%2Flocalhost%3A${servicePort}$`));
    expect(JSON.parse(lines[1]!)).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String), refresh_token: expect.any(String) });
    expect(JSON.parse(lines[2]!)).toEqual({ sub: expect.stringMatching(/^[\w-]{22}$/), acr: 'pwd', amr: ['pwd'], name: 'Demo User', given_name: 'Demo', family_name: 'User' });
    expect(lines.slice(3, 6).map((l) => l.replace(/\?.*/, ''))).toEqual(['http://localhost:8080/callback', 'http://localhost:8080/', 'http://localhost:8080/callback']);
    expect(lines[5]).toContain('error=login_required');
    expect(JSON.parse(lines[6]!)).toMatchObject({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/), expires_in: 60 });
  });

  it("adds the deployment's own plugins, and refuses one named like a package plugin, saying how to fix it", async () => {
    const own = join(deployment, 'plugins', 'hello-grant');
    mkdirSync(own);
    writeFileSync(join(own, 'index.ts'), [
      "import { definePlugin } from 'svc-token-service/sdk';",
      "export default definePlugin({ name: 'hello-grant', extensionGrants: [() => ({ grantType: 'urn:example:hello', validate: async () => undefined })] });",
      '',
    ].join('\n'));
    const listed = await run('npx', ['svc', 'plugins', '--config', join(deployment, 'svc.config.ts')], app);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`hello-grant  (${own})\n  grant types:            urn:example:hello\n`);
    expect(listed.stdout).toContain(`shared-secret  (${join(app, 'node_modules', 'svc-token-service', 'plugins', 'shared-secret')})\n`);

    const clash = join(deployment, 'plugins', 'shared-secret');
    mkdirSync(clash);
    writeFileSync(join(clash, 'index.ts'), "export default { name: 'shared-secret' };\n");
    const refused = await run('npx', ['svc', 'plugins', '--config', join(deployment, 'svc.config.ts')], app);
    rmSync(clash, { recursive: true });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `svc: cannot start [PLUGIN_CONFLICT]\n  two plugins are named "shared-secret": ${join(app, 'node_modules', 'svc-token-service', 'plugins', 'shared-secret')} (in the package) and ${clash}; ` +
        'rename yours (folder and name), or leave "shared-secret" out of packagePlugins to use yours instead\n',
    );
  });
});
