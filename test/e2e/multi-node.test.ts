/**
 * Two server processes, as two nodes behind a load balancer: the same config (one issuer), one
 * PostgreSQL schema, different ports. Whatever one node issues, revokes or signs, the other
 * honours.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import type { UserConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { basic, firstPartyPlugins, freePort, postForm, repoRoot } from '../support/server.js';

const skip = await postgresSkipReason('multi-node tests');
const issuer = 'https://svc.multi-node.test';

interface Node {
  readonly name: string;
  readonly url: string;
  output(): string;
  stop(): Promise<void>;
}

/** Runs `svc start --config <path>` and resolves once the node answers discovery. */
async function startNode(name: string, configPath: string, port: number): Promise<Node> {
  const child = spawn(process.execPath, [join(repoRoot, 'bin/svc.mjs'), 'start', '--config', configPath], {
    cwd: repoRoot,
    env: { ...process.env, SVC_NODE_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const node: Node = { name, url, output: () => output, stop: () => stopProcess(child, exited) };

  const deadline = Date.now() + 45_000;
  let gone = false;
  void exited.then(() => (gone = true));
  while (Date.now() < deadline && !gone) {
    const ready = await fetch(`${url}/.well-known/openid-configuration`).then((r) => r.ok, () => false);
    if (ready) return node;
    await new Promise((r) => setTimeout(r, 150));
  }
  await node.stop();
  throw new Error(`node ${name} did not become ready${gone ? ' (it exited)' : ''}:\n${output}`);
}

async function stopProcess(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timeout = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timeout);
}

describe.skipIf(skip)('two nodes sharing one PostgreSQL database', () => {
  let schema: TestSchema;
  let dir: string;
  let a: Node | undefined;
  let b: Node | undefined;

  beforeAll(async () => {
    schema = await createTestSchema('multi_node');
    dir = mkdtempSync(join(tmpdir(), 'svc-multi-node-'));
    const config: UserConfig = {
      issuer,
      host: '127.0.0.1',
      store: schema.url,
      pluginDirs: [firstPartyPlugins],
      logLevel: 'info',
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] }],
      users: [{ subjectId: 'alice-1', username: 'alice', password: await hashPassword('alice-password', { ln: 10, r: 8, p: 1 }) }],
      clients: [
        {
          clientId: 'ref-app',
          clientSecrets: [{ value: hashSecret('ref-app-secret') }],
          allowedGrantTypes: ['client_credentials', 'password', 'refresh_token'],
          allowedScopes: ['api1.read'],
          accessTokenType: 'reference',
          allowOfflineAccess: true,
          // The replay below follows the first use at once: with the reuse interval on it would only be refused.
          refreshTokenReuseInterval: 0,
        },
        {
          clientId: 'jwt-app',
          clientSecrets: [{ value: hashSecret('jwt-app-secret') }],
          allowedGrantTypes: ['client_credentials'],
          allowedScopes: ['api1.read'],
        },
      ],
    };
    const configPath = join(dir, 'svc.config.ts');
    // One file for both nodes, as a deployment would ship it; only the port differs.
    writeFileSync(
      configPath,
      `const config = ${JSON.stringify(config, null, 2)};\n` +
        'export default { ...config, port: Number(process.env.SVC_NODE_PORT) };\n',
    );
    const [portA, portB] = [await freePort(), await freePort()];
    a = await startNode('A', configPath, portA);
    b = await startNode('B', configPath, portB);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
    await schema?.drop();
  });

  const token = (node: Node, clientId: string, params: Record<string, string> = { grant_type: 'client_credentials' }) =>
    postForm(`${node.url}/connect/token`, params, { authorization: basic(clientId, `${clientId}-secret`) });
  const introspect = (node: Node, value: string) =>
    postForm(`${node.url}/connect/introspect`, { token: value }, { authorization: basic('api1', 'api1-secret') });
  const revoke = (node: Node, clientId: string, value: string) =>
    postForm(`${node.url}/connect/revocation`, { token: value }, { authorization: basic(clientId, `${clientId}-secret`) });

  it('runs both nodes against the same schema', async () => {
    const tables = await schema.query<{ table_name: string }>(
      'select table_name from information_schema.tables where table_schema = $1 order by table_name',
      [schema.name],
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['persisted_grants', 'signing_keys']));
    // Log lines are written asynchronously (at the latest 100 ms later): wait for the line, do not race it.
    await expect.poll(() => a!.output(), { timeout: 5000 }).toContain('svc listening');
    await expect.poll(() => b!.output(), { timeout: 5000 }).toContain('svc listening');
  });

  it('introspects on node B a reference token that node A issued', async () => {
    const issued = await token(a!, 'ref-app');
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const res = await introspect(b!, issued.body.access_token as string);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ active: true, iss: issuer, client_id: 'ref-app', scope: 'api1.read', aud: 'api1' });
  });

  it('honours on node A a revocation made on node B', async () => {
    const issued = await token(a!, 'ref-app');
    const handle = issued.body.access_token as string;
    expect((await introspect(a!, handle)).body.active).toBe(true);

    const revoked = await revoke(b!, 'ref-app', handle);
    expect(revoked.status).toBe(200);

    expect((await introspect(a!, handle)).body).toStrictEqual({ active: false });
    expect((await introspect(b!, handle)).body).toStrictEqual({ active: false });
  });

  it('publishes the same JWKS on both nodes', async () => {
    const [jwksA, jwksB] = await Promise.all(
      [a!, b!].map(async (node) => (await (await fetch(`${node.url}/.well-known/openid-configuration/jwks`)).json()) as JSONWebKeySet),
    );
    expect(jwksA.keys.length).toBeGreaterThanOrEqual(2);
    const byKid = (set: JSONWebKeySet) => [...set.keys].sort((x, y) => String(x.kid).localeCompare(String(y.kid)));
    expect(byKid(jwksB)).toEqual(byKid(jwksA));
  });

  it('signs on node A a JWT that verifies with node B’s JWKS and introspects active on B', async () => {
    const issued = await token(a!, 'jwt-app');
    expect(issued.status).toBe(200);
    const jwt = issued.body.access_token as string;

    const { payload, protectedHeader } = await jwtVerify(jwt, createRemoteJWKSet(new URL(`${b!.url}/.well-known/openid-configuration/jwks`)), {
      issuer,
      typ: 'at+jwt',
    });
    expect(payload).toMatchObject({ client_id: 'jwt-app', scope: 'api1.read', aud: 'api1' });
    expect(protectedHeader.kid).toBe(decodeProtectedHeader(jwt).kid);
    expect((await introspect(b!, jwt)).body).toMatchObject({ active: true, client_id: 'jwt-app' });

    // And the other way round: B's tokens verify with A's keys.
    const fromB = (await token(b!, 'jwt-app')).body.access_token as string;
    const jwksA = (await (await fetch(`${a!.url}/.well-known/openid-configuration/jwks`)).json()) as JSONWebKeySet;
    await expect(jwtVerify(fromB, createLocalJWKSet(jwksA), { issuer })).resolves.toBeTruthy();
  });

  it('rotates a refresh token on node B that node A issued, and detects its replay on node A', async () => {
    const first = await token(a!, 'ref-app', {
      grant_type: 'password',
      username: 'alice',
      password: 'alice-password',
      scope: 'api1.read offline_access',
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const refreshToken = first.body.refresh_token as string;

    const rotated = await token(b!, 'ref-app', { grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);

    const replay = await token(a!, 'ref-app', { grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    // Reuse revoked the family, so the successor issued on B is dead on both nodes.
    const successor = await token(b!, 'ref-app', { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token as string });
    expect(successor.status).toBe(400);
  });
});
