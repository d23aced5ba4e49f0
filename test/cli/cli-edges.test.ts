/**
 * The rough edges of the `svc` command a new user meets first: per-command help, one-line
 * errors instead of stack traces, `--port` / `PORT`, secrets read from standard input, the
 * client assertion's audience taken from the config, and check-config's warnings and
 * suggestions. Spawned as a user runs it (but for each command's help, printed in process).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createStore } from '../../src/store/create-store.js';
import { firstPartyPlugins, freePort } from '../support/server.js';
import { testKeyFiles } from '../support/test-keys.js';
import { runMain } from '../support/svc-in-process.js';
import { runCli as svc, runCliWith, runSvc, until, type SvcProcess } from '../support/svc-process.js';

const commands = ['init', 'start', 'check-config', 'plugins', 'hash-secret', 'hash-password', 'keys', 'create-client-key', 'client-assertion', 'dpop-proof'];
const day = 86_400_000;

let dir: string;
let signingKeys: Array<{ path: string }>;
const running: SvcProcess[] = [];

/** A JSON config next to a plugins folder holding a link to the package's shared-secret (loaded once). */
function writeConfig(name: string, config: Record<string, unknown>): string {
  const file = join(dir, name);
  // The test keys: a command that builds the app (start, check-config, plugins) generates none.
  writeFileSync(file, JSON.stringify({ store: 'memory', signing: { keys: signingKeys }, apiScopes: [{ name: 'api1.read' }], apiResources: [{ name: 'api1', scopes: ['api1.read'] }], ...config }));
  return file;
}

const m2m = (clientId: string, secrets: Array<{ value: string; expiration?: string }>) => ({
  clientId, clientSecrets: secrets, allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'],
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-cli-edges-'));
  mkdirSync(join(dir, 'plugins'));
  symlinkSync(join(firstPartyPlugins, 'shared-secret'), join(dir, 'plugins', 'shared-secret'), 'dir');
  signingKeys = testKeyFiles(dir);
});

afterAll(() => {
  for (const p of running) p.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |Error:|node:internal/);

describe('svc <command> --help', () => {
  // Each command's help through the CLI's entry in process (what the binary runs, without a
  // process each); `svc --help` and the unknown option below run the binary.
  it.each(commands)('%s --help prints its usage and exits 0', async (command) => {
    const run = await runMain(command, '--help');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.split('\n')[0]).toMatch(new RegExp(`^usage: svc ${command} `));
  });

  it('svc help <command> is the same as <command> --help', async () => {
    expect((await runMain('help', 'start')).stdout).toBe((await runMain('start', '-h')).stdout);
  });

  it('svc --help lists every command', async () => {
    const run = await svc('--help');
    expect(run.code).toBe(0);
    for (const command of commands) expect(run.stdout).toMatch(new RegExp(`^ {2}${command} `, 'm'));
  });

  it('an unknown option names itself and shows the usage, exit 1', async () => {
    const run = await svc('hash-secret', '--colour', 'x');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^svc: hash-secret: unknown option --colour\n/);
    expect(run.stderr).toContain('usage: svc hash-secret');
  });
});

describe('one line instead of a stack trace', () => {
  let blocker: Server;
  let busyPort: number;
  beforeAll(async () => {
    busyPort = await freePort();
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(busyPort, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('start on a port in use says so and how to choose another', async () => {
    const config = writeConfig('busy.json', { port: busyPort, clients: [m2m('m2m', [{ value: hashSecret('s') }])] });
    const run = await svc('start', '--config', config);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`svc: cannot listen on 127.0.0.1:${busyPort}: the port is in use. Stop the other process, or choose another port with --port <n> (or PORT=<n>).\n`);
  });

  it('client-assertion --key with a missing file', async () => {
    const run = await svc('client-assertion', '--client', 'c', '--key', join(dir, 'missing.pem'), '--aud', 'https://issuer.example');
    expect(run).toEqual({ code: 1, stdout: '', stderr: `svc: no such file: ${join(dir, 'missing.pem')}. Check the path (relative paths are taken from the current folder).\n` });
  });

  it('client-assertion --key with a file that is not a key', async () => {
    const notKey = join(dir, 'not-a-key.pem');
    writeFileSync(notKey, 'hello\n');
    const run = await svc('client-assertion', '--client', 'c', '--key', notKey, '--aud', 'https://issuer.example');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`svc: ${notKey} holds no private key svc can read: expected a PEM private key, as written by svc create-client-key.\n`);
  });

  it('start with a config file that is a folder', async () => {
    const run = await svc('start', '--config', dir);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(2);
    noStack(run.stderr);
  });

  it('a bad --port', async () => {
    const run = await svc('start', '--port', '70000');
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'svc: --port must be a port number from 1 to 65535, got "70000".\n' });
  });
});

describe('--port and PORT override the config', () => {
  const config = () => writeConfig('port.json', { port: 1, clients: [m2m('m2m', [{ value: hashSecret('s') }])] });

  it.each([
    ['--port', (port: number) => ({ args: ['--port', String(port)] })],
    ['PORT', (port: number) => ({ env: { PORT: String(port) } })],
  ])('%s', async (_name, options) => {
    const port = await freePort();
    const proc = runSvc(config(), options(port));
    running.push(proc);
    await until('listening', proc, () => proc.logs().some((l) => l.msg === 'svc listening'));
    const listening = proc.logs().find((l) => l.msg === 'svc listening')!;
    expect(listening.url).toBe(`http://127.0.0.1:${port}`);
    // The default issuer follows the port.
    expect(listening.issuer).toBe(`http://localhost:${port}`);
    const discovery = (await (await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(discovery.issuer).toBe(`http://localhost:${port}`);
    proc.proc.kill('SIGTERM');
    await proc.exited;
  });
});

describe('--host and HOST override the config', () => {
  // Any address of the loopback network is this machine's own on Linux: 127.0.0.2 is not the default.
  it.each([
    ['--host', (port: number) => ({ args: ['--port', String(port), '--host', '127.0.0.2'] })],
    ['HOST', (port: number) => ({ args: ['--port', String(port)], env: { HOST: '127.0.0.2' } })],
  ])('%s', async (_name, options) => {
    const port = await freePort();
    const proc = runSvc(writeConfig('host.json', { clients: [m2m('m2m', [{ value: hashSecret('s') }])] }), options(port));
    running.push(proc);
    await until('listening', proc, () => proc.logs().some((l) => l.msg === 'svc listening'));
    expect(proc.logs().find((l) => l.msg === 'svc listening')!.url).toBe(`http://127.0.0.2:${port}`);
    expect((await fetch(`http://127.0.0.2:${port}/.well-known/openid-configuration`)).status).toBe(200);
    proc.proc.kill('SIGTERM');
    await proc.exited;
  });
});

describe('secrets and passwords from standard input', () => {
  it('hash-secret reads the secret from a pipe (one trailing newline dropped)', async () => {
    expect(await runCliWith({ input: 'secret\n' }, 'hash-secret')).toEqual({ code: 0, stdout: `${hashSecret('secret')}\n`, stderr: '' });
    expect(await runCliWith({ input: 'secret' }, 'hash-secret', '-')).toEqual({ code: 0, stdout: `${hashSecret('secret')}\n`, stderr: '' });
  });

  it('hash-password reads the password from a pipe', async () => {
    const run = await runCliWith({ input: 'pw from stdin\n' }, 'hash-password');
    expect(run.code).toBe(0);
    expect(await verifyPassword('pw from stdin', run.stdout.trim())).toBe(true);
  });

  it('an empty pipe is refused', async () => {
    expect(await runCliWith({ input: '' }, 'hash-secret')).toEqual({
      code: 1, stdout: '', stderr: 'svc: no secret given: pass it as an argument, pipe it on standard input, or type it at the prompt.\n',
    });
  });

  it('two secrets are refused', async () => {
    const run = await svc('hash-secret', 'a', 'b');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^svc: hash-secret takes at most 1 argument/);
  });
});

describe('client-assertion audience', () => {
  it("defaults to the config's issuer", async () => {
    const config = writeConfig('issuer.json', { issuer: 'https://id.example.com', clients: [m2m('m2m', [{ value: hashSecret('s') }])] });
    const run = await svc('client-assertion', '--client', 'pkjwt-demo', '--key', 'docs/demo-keys/pkjwt-demo.pem', '--config', config);
    expect(run.code).toBe(0);
    expect(decodeJwt(run.stdout.trim())).toMatchObject({ iss: 'pkjwt-demo', sub: 'pkjwt-demo', aud: 'https://id.example.com' });
  });

  it('--aud wins', async () => {
    const run = await svc('client-assertion', '--client', 'pkjwt-demo', '--key', 'docs/demo-keys/pkjwt-demo.pem', '--aud', 'https://other.example');
    expect(decodeJwt(run.stdout.trim()).aud).toBe('https://other.example');
  });

  it('without a config or --aud, says how to give one', async () => {
    const run = await svc('client-assertion', '--client', 'c', '--key', 'docs/demo-keys/pkjwt-demo.pem', '--config', join(dir, 'nope.json'));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^svc: cannot take the audience from the config \(config file not found: .+nope\.json\): pass --aud <issuer> or --config <path>\.\n$/);
  });
});

describe('check-config', () => {
  it('warns about a client whose secrets have all expired and one whose last secret expires within 14 days', async () => {
    const now = Date.now();
    const config = writeConfig('expiring.json', {
      clients: [
        m2m('expired', [{ value: hashSecret('a'), expiration: new Date(now - day).toISOString() }]),
        m2m('soon', [{ value: hashSecret('b'), expiration: new Date(now + 3 * day + 60_000).toISOString() }]),
        // Rotation with an overlap: the new secret outlives the window, so nothing to say.
        m2m('rotating', [{ value: hashSecret('c'), expiration: new Date(now + 2 * day).toISOString() }, { value: hashSecret('d') }]),
        m2m('fine', [{ value: hashSecret('e'), expiration: new Date(now + 30 * day).toISOString() }]),
      ],
    });
    const run = await svc('check-config', '--config', config);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${config}: config ok (4 clients, 8 plugins)\n`);
    const warnings = run.stderr.split('\n').filter(Boolean);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toBe('svc: warning: clients[0] "expired": every secret has expired, so the client cannot authenticate; add a new secret');
    expect(warnings[1]).toMatch(/^svc: warning: clients\[1\] "soon": its last secret expires \S+Z \(in 4 days\); add a new secret before then$/);
  });

  it('checks the clients kept in the store too, naming where each comes from (issue 39)', async () => {
    const now = Date.now();
    const store = await createStore('sqlite:./kept.db', dir);
    await store.migrate();
    const secret = (id: string, expiresAt: number) => ({ id, type: 'SharedSecret', value: hashSecret(id), description: undefined, createdAt: now - 2 * day, expiresAt });
    const kept = (id: string, secrets: ReturnType<typeof secret>[], disabled = false) =>
      store.clientRecords.add({ kind: 'client', id, definition: { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }, disabled, createdAt: now - 2 * day, secrets });
    await kept('stale-reports', [secret('s1', now - day)]);
    await kept('switched-off', [secret('s2', now - day)], true);
    await kept('healthy', [secret('s3', now + 90 * day)]);
    await store.close();
    const config = writeConfig('with-store.json', { store: 'sqlite:./kept.db', clients: [m2m('in-config', [{ value: hashSecret('x') }])] });
    const run = await svc('check-config', '--config', config);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${config}: config ok (1 client in the config, 3 in the store, 8 plugins)\n`);
    expect(run.stderr).toBe('svc: warning: store client "stale-reports": every secret has expired, so the client cannot authenticate; add a new secret\n');
  });

  it('does not create a SQLite file that is not there, and says when the store cannot be read', async () => {
    const missing = writeConfig('no-db.json', { store: 'sqlite:./not-yet.db' });
    const run = await svc('check-config', '--config', missing);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(existsSync(join(dir, 'not-yet.db'))).toBe(false);
    const down = writeConfig('pg-down.json', { store: 'postgres://svc@127.0.0.1:1/none' });
    const refused = await svc('check-config', '--config', down);
    expect(refused.code).toBe(0);
    expect(refused.stderr).toMatch(/^svc: warning: the clients kept in the store were not checked: nothing answers at 127\.0\.0\.1:1: the connection was refused\./);
  });

  it('suggests the closest known name for a misspelled field and grant type', async () => {
    const config = writeConfig('typos.json', {
      clients: [{ ...m2m('m2m', [{ value: hashSecret('s') }]), allowedGrantTypes: ['client_credential'], alowedScopes: [] }],
    });
    const run = await svc('check-config', '--config', config);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^ {2}clients\[0\]\.alowedScopes: unknown field \(did you mean "allowedScopes"\?\) \(known: /m);
    const grant = await svc('check-config', '--config', writeConfig('grant-typo.json', {
      clients: [{ ...m2m('m2m', [{ value: hashSecret('s') }]), allowedGrantTypes: ['client_credential'] }],
    }));
    expect(grant.stderr).toMatch(/^ {2}clients\[0\]\.allowedGrantTypes\[0\]: unknown grant type "client_credential" \(did you mean "client_credentials"\?\) \(known: /m);
  });
});
