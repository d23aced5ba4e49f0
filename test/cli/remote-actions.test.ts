/**
 * `svc --server <admin URL> clients|apis|users ...` (issue 39): every action the admin API
 * supports, run through a running service's API, prints what the same command prints on the
 * database (the entry's name, generated values and times aside), in text and in --json; a change
 * reaches the database; a refusal is one line with the API's sentence. Commands without a
 * password run in process (`main`); those that read one from standard input run as a child
 * process, the way an operator pipes one.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { basic, postForm } from '../support/server.js';
import { startAdminService, type AdminService } from '../support/admin-service.js';
import { runCliWith } from '../support/svc-process.js';

let service: AdminService;

beforeAll(async () => {
  service = await startAdminService({
    name: 'remote-actions',
    config: {
      apiScopes: [{ name: 'api1.read' }, { name: 'api1.write' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read', 'api1.write'] }],
      clientStores: { refreshInterval: 1 },
      passwordRules: { minLength: 10 },
    },
  });
});
afterAll(async () => {
  await service?.close();
});

interface Run { code: number; stdout: string; stderr: string }

/** `svc <args>` in process, capturing what it writes. */
async function svc(...args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  const before = process.env.SVC_ADMIN_TOKEN;
  process.env.SVC_ADMIN_TOKEN = service.token;
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    if (before === undefined) delete process.env.SVC_ADMIN_TOKEN;
    else process.env.SVC_ADMIN_TOKEN = before;
    out.mockRestore();
    err.mockRestore();
  }
}
const local = (...args: string[]) => svc(...args, '--config', service.configFile);
const remote = (...args: string[]) => svc('--server', service.adminUrl, ...args);

/** What may differ between two runs of one action: times, generated secrets and their ids. */
function same(text: string, names: Record<string, string> = {}): string {
  let s = text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>');
  for (const [from, to] of Object.entries(names)) s = s.split(from).join(to);
  return s
    .replace(/secret [0-9a-f]{8}/g, 'secret <id>')
    .replace(/"(secretId|id)":"[0-9a-f]{8}"/g, '"$1":"<id>"')
    .replace(/(: |"secret":")[A-Za-z0-9_-]{43}/g, '$1<secret>')
    .replace(/^( {2})[0-9a-f]{8}( {2})/gm, '$1<id>$2');
}

/** Runs one action on `a` on the database and on `b` through the API; both succeed with the same output. */
async function both(kind: 'clients' | 'apis', a: string, b: string, ...args: string[]): Promise<[Run, Run]> {
  const l = await local(kind, ...args.map((x) => (x === '<id>' ? a : x)));
  const r = await remote(kind, ...args.map((x) => (x === '<id>' ? b : x)));
  expect(l.code, l.stderr).toBe(0);
  expect(r.code, r.stderr).toBe(0);
  expect(same(r.stdout, { [b]: a })).toBe(same(l.stdout));
  expect(same(r.stderr, { [b]: a })).toBe(same(l.stderr));
  return [l, r];
}

const secretIds = async (kind: 'clients' | 'apis', id: string): Promise<string[]> =>
  (JSON.parse((await remote(kind, 'show', id, '--json')).stdout) as { secrets: Array<{ id: string }> }).secrets.map((s) => s.id);

describe('svc --server <admin URL> clients ...', () => {
  it('adds, shows, updates, disables, enables and removes a client as svc clients does on the database', async () => {
    const [addedLocal, added] = await both('clients', 'c-local', 'c-remote', 'add', '<id>', '--grant', 'client_credentials', '--scope', 'api1.read', '--name', 'Reports');
    expect(added.stdout).toMatch(/^client "c-remote" added to the database\.\nsecret [0-9a-f]{8}: [A-Za-z0-9_-]{43}\n$/);
    // The secret printed through the API is the one the service now takes (both used: show prints the last use).
    for (const [id, run] of [['c-remote', added], ['c-local', addedLocal]] as const) {
      const issued = await postForm(`${service.server.url}/connect/token`, { grant_type: 'client_credentials' }, { authorization: basic(id, run.stdout.split(': ')[1]!.trim()) });
      expect(issued.status).toBe(200);
    }

    await both('clients', 'c-local', 'c-remote', 'show', '<id>');
    await both('clients', 'c-local', 'c-remote', 'show', '<id>', '--json');
    await both('clients', 'c-local', 'c-remote', 'update', '<id>', '--scope', 'api1.read', '--scope', 'api1.write', '--access-token-lifetime', '600');
    const shown = JSON.parse((await remote('clients', 'show', 'c-remote', '--json')).stdout) as Record<string, unknown>;
    expect(shown).toMatchObject({ allowedScopes: ['api1.read', 'api1.write'], accessTokenLifetime: 600, clientName: 'Reports' });

    for (const action of ['disable', 'enable']) {
      const l = await local('clients', action, 'c-local');
      const r = await remote('clients', action, 'c-remote');
      expect(l.stdout).toBe(`client "c-local" ${action}d; every node follows within 1s.\n`);
      // The API does not tell its nodes' refresh interval; the node that answered follows at once.
      expect(r).toMatchObject({ code: 0, stdout: `client "c-remote" ${action}d; every node follows within its clientStores.refreshInterval.\n` });
    }
    expect(JSON.parse((await remote('clients', 'show', 'c-remote', '--json')).stdout)).toMatchObject({ disabled: false });
    await remote('clients', 'disable', 'c-remote');
    expect(JSON.parse((await local('clients', 'show', 'c-remote', '--json')).stdout)).toMatchObject({ disabled: true });

    await both('clients', 'c-local', 'c-remote', 'remove', '<id>');
    expect((await local('clients', 'show', 'c-remote')).stderr).toBe('svc: client "c-remote" is not in the database.\n');
  });

  it('adds and removes secrets, a rotation and a certificate among them, as on the database', async () => {
    await both('clients', 's-local', 's-remote', 'add', '<id>', '--grant', 'client_credentials', '--scope', 'api1.read');
    const [, rotated] = await both('clients', 's-local', 's-remote', 'secret', 'add', '<id>', '--expires-in', '90d', '--expire-others-in', '1h', '--description', 'next');
    expect(rotated.stdout).toMatch(/^secret [0-9a-f]{8} \(expires \S+\): [A-Za-z0-9_-]{43}\n$/);
    await both('clients', 's-local', 's-remote', 'secret', 'add', '<id>', '--json');
    await both('clients', 's-local', 's-remote', 'show', '<id>');

    const [first] = await secretIds('clients', 's-remote');
    const [firstLocal] = await secretIds('clients', 's-local');
    const l = await local('clients', 'secret', 'remove', 's-local', firstLocal!);
    const r = await remote('clients', 'secret', 'remove', 's-remote', first!);
    expect(r).toMatchObject({ code: 0, stdout: `secret ${first} of "s-remote" removed.\n` });
    expect(l.stdout).toBe(`secret ${firstLocal} of "s-local" removed.\n`);
    expect(await secretIds('clients', 's-remote')).not.toContain(first);

    const missing = await remote('clients', 'secret', 'remove', 's-remote', 'nosuch00');
    expect(missing).toMatchObject({ code: 1, stderr: 'svc: Secret "nosuch00" of client "s-remote" does not exist.\n' });
    const expire = await remote('clients', 'secret', 'expire', 's-remote', first!);
    expect(expire).toMatchObject({ code: 1, stderr: 'svc: the admin API cannot change a secret\'s expiry: add one with secret add --expire-others-in, or run secret expire with --config on the database.\n' });
  });

  it('prints a refusal as the command on the database does', async () => {
    const l = await local('clients', 'add', 'bad-local', '--grant', 'client_credentials', '--scope', 'nosuch.scope');
    const r = await remote('clients', 'add', 'bad-remote', '--grant', 'client_credentials', '--scope', 'nosuch.scope');
    expect(l.code).toBe(1);
    expect(r.code).toBe(1);
    expect(r.stderr.replaceAll('bad-remote', 'bad-local')).toBe(l.stderr);
    const dup = await remote('clients', 'add', 'ops', '--grant', 'client_credentials', '--scope', 'api1.read');
    expect(dup).toMatchObject({ code: 1, stderr: 'svc: client "ops" is defined in the config file.\n' });
    expect(await remote('clients', 'show', 'nosuch')).toMatchObject({ code: 1, stderr: 'svc: client "nosuch" does not exist.\n' });
    expect((await remote('clients', 'test-auth', 'ops')).stderr).toBe('svc: svc --server does not run clients test-auth; run it with --config on the database.\n');
  });
});

describe('svc --server <admin URL> apis ...', () => {
  it('adds, shows, updates, disables and removes an API resource, and rotates its secret, as on the database', async () => {
    await both('apis', 'orders-local', 'orders-remote', 'add', '<id>', '--scope', 'api1.read', '--json');
    await both('apis', 'orders-local', 'orders-remote', 'show', '<id>');
    await both('apis', 'orders-local', 'orders-remote', 'update', '<id>', '--scope', 'api1.read', '--scope', 'api1.write');
    await both('apis', 'orders-local', 'orders-remote', 'secret', 'add', '<id>', '--expire-others-in', '7d');
    await both('apis', 'orders-local', 'orders-remote', 'show', '<id>', '--json');
    expect((await remote('apis', 'disable', 'orders-remote')).stdout).toBe('API resource "orders-remote" disabled; every node follows within its clientStores.refreshInterval.\n');
    const listed = await remote('apis', 'list', '--json');
    expect(JSON.parse(listed.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'orders-remote', disabled: true, scopes: ['api1.read', 'api1.write'] })]));
    await both('apis', 'orders-local', 'orders-remote', 'remove', '<id>');
  });
});

describe('svc --server <admin URL> users ...', () => {
  const piped = (input: string, ...args: string[]) => runCliWith({ input, env: { SVC_ADMIN_TOKEN: service.token } }, ...args);

  it('adds a user with a piped password, never from the command line, as on the database', async () => {
    const l = await piped('correct horse battery\n', 'users', 'add', 'alice', '--email', 'alice@example.com', '--claim', 'name=Alice', '--config', service.configFile);
    const r = await piped('correct horse battery\n', '--server', service.adminUrl, 'users', 'add', 'bob', '--email', 'bob@example.com', '--claim', 'name=Alice');
    expect(l.code, l.stderr).toBe(0);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^user "bob" added \(subject [A-Za-z0-9_-]{22}\)\.\n$/);
    expect(l.stdout).toMatch(/^user "alice" added \(subject [A-Za-z0-9_-]{22}\)\.\n$/);
    const refused = await remote('users', 'add', 'carol', 'a-password');
    expect(refused.stderr).toMatch(/^svc: svc users add takes <username>: a password is never taken from the command line/);
    const taken = await piped('another long password\n', '--server', service.adminUrl, 'users', 'add', 'BOB');
    expect(taken).toMatchObject({ code: 1, stderr: 'svc: a user "BOB" is already in the database (usernames are compared without regard to case).\n' });
  });

  it('lists and shows users as on the database, in text and --json', async () => {
    for (const args of [['users', 'list'], ['users', 'list', '--json'], ['users', 'show', 'bob'], ['users', 'show', 'BOB', '--json']]) {
      const l = await local(...args);
      const r = await remote(...args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(l.stdout);
    }
    expect((await remote('users', 'list')).stdout).toMatch(/^username +subject +email +state +last sign-in\n(alice|bob) /);
    expect(await remote('users', 'show', 'nobody')).toMatchObject({ code: 1, stderr: 'svc: no user "nobody" in the database (svc users list shows them).\n' });
  });

  it('updates, disables, enables, sets a password and removes, as on the database', async () => {
    const pairs = async (...args: string[]) => {
      const l = await local('users', ...args.map((x) => (x === '<u>' ? 'alice' : x)));
      const r = await remote('users', ...args.map((x) => (x === '<u>' ? 'bob' : x)));
      expect(r.code, r.stderr).toBe(0);
      expect(l.code, l.stderr).toBe(0);
      expect(same(r.stdout, { bob: 'alice' }).replace(/"subjectId":"[^"]+"/g, '')).toBe(same(l.stdout).replace(/"subjectId":"[^"]+"/g, ''));
      return r;
    };
    await pairs('update', '<u>', '--email', 'new@example.com', '--email-verified', 'true', '--claim', 'team=blue');
    expect(JSON.parse((await local('users', 'show', 'bob', '--json')).stdout)).toMatchObject({ email: 'new@example.com', emailVerified: true, claims: { name: 'Alice', team: 'blue' } });
    expect((await pairs('disable', '<u>')).stdout).toBe('user "bob" disabled; 0 sessions and tokens ended.\n');
    await pairs('enable', '<u>', '--json');

    const weak = await piped('short\n', '--server', service.adminUrl, 'users', 'set-password', 'bob');
    const weakLocal = await piped('short\n', 'users', 'set-password', 'alice', '--config', service.configFile);
    expect(weak.code).toBe(1);
    expect(weak.stderr).toBe(weakLocal.stderr);
    const set = await piped('a much better password\n', '--server', service.adminUrl, 'users', 'set-password', 'bob');
    expect(set).toMatchObject({ code: 0, stdout: 'password of "bob" set.\n' });
    expect(JSON.parse((await local('users', 'show', 'bob', '--json')).stdout)).toMatchObject({ hasPassword: true });

    expect((await pairs('remove', '<u>')).stdout).toBe('user "bob" removed; 0 sessions and tokens ended.\n');
    expect((await local('users', 'show', 'bob')).code).toBe(1);
    expect((await remote('users', 'factors', 'alice')).stderr).toBe('svc: svc --server does not run users factors; run it with --config on the database.\n');
  });
});
