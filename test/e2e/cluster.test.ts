/**
 * Cluster mode (`workers` > 1), run as a user runs it: `node bin/svc.mjs start` with two
 * workers on one port and a SQLite file store. Each spawn costs several seconds, so the
 * cluster is started once and the tests run in order against it; SIGTERM comes last.
 */
import { request } from 'node:http';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, firstPartyPlugins, freePort } from '../support/server.js';
import { runSvc, until, type SvcProcess } from '../support/svc-process.js';

/** One request on a fresh connection, so the cluster hands each to the next worker. */
function send(url: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers ?? {}, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end(init.body);
  });
}

const secret = 'cluster-secret-5b1e';
const tokenRequest = (clientId: string, password: string) => ({
  method: 'POST',
  body: 'grant_type=client_credentials&scope=api1.read',
  headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, password) },
});

let dir: string;
let baseUrl: string;
let svc: SvcProcess;

function writeConfig(name: string, overrides: Record<string, unknown>): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      logLevel: 'info',
      pluginDirs: [firstPartyPlugins],
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [
        { clientId: 'm2m', clientSecrets: [{ value: hashSecret(secret) }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
      ],
      ...overrides,
    }),
  );
  return file;
}

const workerPids = (): number[] => [
  ...new Set(svc.logs().filter((l) => l.msg === 'svc listening').map((l) => l.pid as number)),
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  svc = runSvc(writeConfig('cluster.svc.json', { port, issuer: baseUrl, workers: 2, store: 'sqlite:./data/svc.db', metrics: { enabled: true } }));
  await until('two workers listening', svc, () => workerPids().length === 2, 50_000);
}, 60_000);

afterAll(async () => {
  if (svc?.proc.exitCode === null && svc.proc.signalCode === null) {
    svc.proc.kill('SIGKILL');
    for (const pid of workerPids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('svc start with workers: 2', () => {
  it('runs two worker processes besides the primary', () => {
    const pids = workerPids();
    expect(pids).toHaveLength(2);
    expect(pids).not.toContain(svc.proc.pid);
    expect(svc.logs().find((l) => l.msg === 'cluster starting')).toMatchObject({ pid: svc.proc.pid, workers: 2 });
  });

  it('creates one signing key per algorithm, once, and every request sees the same JWKS', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(`${baseUrl}/.well-known/openid-configuration/jwks`)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    const jwks = JSON.parse(answers[0]!.body) as JSONWebKeySet;
    expect(jwks.keys.map((k) => k.alg).sort()).toEqual(['ES256', 'RS256']);
    expect(svc.logs().filter((l) => l.msg === 'signing key created').map((l) => l.pid)).toEqual([svc.proc.pid, svc.proc.pid]);
  });

  it('issues tokens from every worker that verify against the shared JWKS', async () => {
    const jwks = createLocalJWKSet(JSON.parse((await send(`${baseUrl}/.well-known/openid-configuration/jwks`)).body) as JSONWebKeySet);
    const answers = await Promise.all(Array.from({ length: 40 }, () => send(`${baseUrl}/connect/token`, tokenRequest('m2m', secret))));
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    for (const { body } of answers) {
      const { payload } = await jwtVerify((JSON.parse(body) as { access_token: string }).access_token, jwks, { issuer: baseUrl });
      expect(payload).toMatchObject({ client_id: 'm2m', scope: 'api1.read', aud: 'api1' });
    }
  });

  it('spreads connections over both workers', async () => {
    // A rejected request is logged (level info) by the worker that answered it, with its pid.
    // Each from another unknown client, so the failed-authentication throttle stays out of it.
    for (let i = 0; i < 20; i++) {
      expect((await send(`${baseUrl}/connect/token`, tokenRequest(`stranger-${i}`, 'wrong-secret'))).status).toBe(401);
    }
    await until('the rejections to be logged', svc, () => svc.logs().filter((l) => l.msg === 'request rejected').length >= 20, 5000);
    const answeredBy = new Set(svc.logs().filter((l) => l.msg === 'request rejected').map((l) => l.pid));
    expect([...answeredBy].sort()).toEqual(workerPids().sort());
  });

  it('answers every metrics scrape with the whole instance, whichever worker takes it', async () => {
    const sample = (text: string, name: string): number => Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    const before = (await send(`${baseUrl}/metrics`)).body;
    const issued = sample(before, 'svc_tokens_issued_total{grant_type="client_credentials"}');
    expect(issued).toBe(40);
    const answers = await Promise.all(Array.from({ length: 6 }, () => send(`${baseUrl}/connect/token`, tokenRequest('m2m', secret))));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    // Fresh connections: the scrapes land on both workers, and each sees all 46.
    const scrapes = await Promise.all(Array.from({ length: 6 }, () => send(`${baseUrl}/metrics`)));
    for (const { status, body } of scrapes) {
      expect(status).toBe(200);
      expect(sample(body, 'svc_tokens_issued_total{grant_type="client_credentials"}')).toBe(46);
      expect(sample(body, 'svc_http_requests_total{route="/connect/token",method="POST",status="200"}')).toBe(46);
    }
  });

  it('stops every worker gracefully on SIGTERM and exits 0', async () => {
    const pids = workerPids();
    svc.proc.kill('SIGTERM');
    expect(await svc.exited).toMatchObject({ code: 0, signal: null });
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    const logs = svc.logs();
    expect(logs.filter((l) => l.msg === 'shutting down').map((l) => l.pid).sort()).toEqual([...pids].sort());
    expect(logs.at(-1)).toMatchObject({ msg: 'cluster stopped', exitCode: 0, pid: svc.proc.pid });
  });
});

describe('svc start with workers: 2 and store: "memory"', () => {
  it('refuses to start, naming workers and store', async () => {
    const port = await freePort();
    const refused = runSvc(writeConfig('memory.svc.json', { port, workers: 2, store: 'memory' }));
    expect(await refused.exited).toMatchObject({ code: 1, signal: null });
    expect(refused.output()).toContain('svc: cannot start [CONFIG_INVALID]');
    expect(refused.output()).toMatch(/workers: 2 runs 2 processes that must share one store, but store is "memory"/);
    expect(refused.output()).toContain('use store: "sqlite:<path>" or "postgres://...", or set workers: 1');
  }, 30_000);
});

describe('svc start with workers: 2 and a config the workers would refuse', () => {
  it('refuses before the primary writes: no database file, no folder, no key', async () => {
    const port = await freePort();
    const refused = runSvc(writeConfig('typo.svc.json', {
      port, workers: 2, store: 'sqlite:./typo-data/svc.db',
      clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret(secret) }], allowedGrantTypes: ['client_credential'], allowedScopes: ['api1.read'] }],
    }));
    expect(await refused.exited).toMatchObject({ code: 1, signal: null });
    expect(refused.output()).toContain('svc: cannot start [CONFIG_INVALID]');
    expect(refused.output()).toContain('clients[0].allowedGrantTypes[0]: unknown grant type "client_credential"');
    expect(existsSync(join(dir, 'typo-data'))).toBe(false);
  }, 30_000);
});
