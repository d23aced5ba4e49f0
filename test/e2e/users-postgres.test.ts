/**
 * Users the service keeps, on PostgreSQL across two nodes (issue 34): a user the operator adds
 * with `svc users add` signs in at either node at once (each sign-in reads the database), with
 * their sign-in recorded; disabled from the CLI, neither node lets them in.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { basic, firstPartyPlugins, postForm, startServer, type TestServer } from '../support/server.js';
import { runCliWith } from '../support/svc-process.js';
import { testKeyFiles } from '../support/test-keys.js';

const skip = await postgresSkipReason('users on PostgreSQL');

describe.skipIf(skip)('users in PostgreSQL on two nodes', () => {
  let schema: TestSchema;
  let a: TestServer;
  let b: TestServer;
  let dir: string;
  let configFile: string;
  const svc = (input: string, ...args: string[]) => runCliWith({ input }, 'users', ...args, '--config', configFile);
  const grant = (node: TestServer, password: string) =>
    postForm(`${node.url}/connect/token`, { grant_type: 'password', username: 'hana', password, scope: 'api1.read' }, { authorization: basic('app', 'app-secret') });

  beforeAll(async () => {
    schema = await createTestSchema('users');
    dir = mkdtempSync(join(tmpdir(), 'svc-users-pg-'));
    const config: UserConfig = {
      store: schema.url,
      pluginDirs: [firstPartyPlugins],
      issuer: 'https://svc.users.test',
      signing: { keys: testKeyFiles(dir) },
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [{ clientId: 'app', clientSecrets: [{ value: hashSecret('app-secret') }], allowedGrantTypes: ['password'], allowedScopes: ['api1.read'] }],
    };
    a = await startServer(config);
    b = await startServer(config);
    configFile = join(dir, 'svc.config.json');
    writeFileSync(configFile, JSON.stringify(config));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await schema?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a user added with the CLI signs in at both nodes at once; disabled, at neither', async () => {
    const added = await svc('hana-password-1', 'add', 'hana', '--json');
    expect(added.code, added.stderr).toBe(0);
    const { subjectId } = JSON.parse(added.stdout) as { subjectId: string };
    for (const node of [a, b]) expect((await grant(node, 'hana-password-1')).status).toBe(200);
    const [row] = await schema.query<{ subject_id: string; username_key: string; last_sign_in_at: string | null; password_hash: string }>('select * from users');
    expect(row).toMatchObject({ subject_id: subjectId, username_key: 'hana', last_sign_in_at: expect.stringMatching(/^\d+$/) });
    expect(row!.password_hash).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);

    expect((await svc('', 'disable', 'hana')).code).toBe(0);
    for (const node of [a, b]) expect(await grant(node, 'hana-password-1')).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  }, 90_000);
});
