/**
 * What start-up warns about (issue 33, newcomer's trial), one line each, never a secret in it:
 * the README's published sample secrets still in use, and signing keys stored unencrypted where
 * the service is reachable beyond this machine. And what it keeps quiet about.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { checkConfig, loadConfig } from '../../src/config/load.js';
import type { ResolvedConfig, UserConfig } from '../../src/config/schema.js';
import { hashSecret } from '../../src/sdk/hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

interface LogLine { level: number; msg: string; [field: string]: unknown }

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-warn-'));
});
afterEach(() => {
  delete process.env.SVC_TEST_WARN_KEK;
  rmSync(dir, { recursive: true, force: true });
});

/** Starts and stops an app; answers its log lines (as text too, to look for secrets). */
async function startUpLog(config: ResolvedConfig, withStore = true): Promise<{ lines: LogLine[]; text: string }> {
  const chunks: string[] = [];
  const logs = new Writable({ write: (chunk: Buffer, _enc, done) => { chunks.push(chunk.toString()); done(); } });
  const app = await createApp(config, { logDestination: logs, ...(withStore ? { store: createMemoryStore({ now: () => Date.now() }) } : {}) });
  await app.close();
  const text = chunks.join('');
  return { lines: text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogLine), text };
}

const warnings = (lines: LogLine[]): string[] => lines.filter((l) => l.level === 40).map((l) => l.msg);
const sampleWarning = /^secrets published in the README's samples are in use/;
const unencryptedWarning = /^signing keys are stored unencrypted/;

function m2mConfig(secret: string, apiSecret: string, extra: Partial<UserConfig> = {}): ResolvedConfig {
  return checkConfig({
    issuer: 'http://127.0.0.1:5000', store: 'memory', pluginDirs: [], logLevel: 'info',
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret(apiSecret) }] }],
    clients: [
      { clientId: 'm2m', clientSecrets: [{ value: hashSecret(secret) }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
      { clientId: 'own', clientSecrets: [{ value: hashSecret(randomBytes(16).toString('hex'), 'sha512') }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] },
    ],
    ...extra,
  }, dir);
}

describe('the published sample secrets', () => {
  it('in use: one warning naming the clients and APIs that hold them, and no secret or hash', async () => {
    const { lines, text } = await startUpLog(m2mConfig('m2m-secret', 'api1-secret'));
    const found = lines.filter((l) => sampleWarning.test(l.msg));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ level: 40, clients: ['m2m'], apiResources: ['api1'] });
    for (const secret of ['m2m-secret', 'api1-secret', hashSecret('m2m-secret'), hashSecret('api1-secret')]) expect(text).not.toContain(secret);
  });

  it('the sample deployment itself (svc.config.ts) is warned about, the demo certificate of pkjwt-demo included', async () => {
    const { config } = await loadConfig({ path: 'svc.config.ts' });
    const { lines } = await startUpLog({ ...config, logLevel: 'warn' });
    const found = lines.find((l) => sampleWarning.test(l.msg));
    expect(found?.clients).toEqual(['m2m', 'm2m-reference', 'web', 'api1.client', 'pkjwt-demo', 'webapp']);
    expect(found?.apiResources).toEqual(['api1', 'backend']);
  });

  it('not in use: no warning', async () => {
    const { lines } = await startUpLog(m2mConfig(randomBytes(16).toString('hex'), randomBytes(16).toString('hex')));
    expect(warnings(lines)).toEqual([]);
  });
});

describe('signing keys stored unencrypted', () => {
  const sqlite = (issuer: string, extra: Partial<UserConfig> = {}): ResolvedConfig =>
    ({ ...m2mConfig(randomBytes(16).toString('hex'), randomBytes(16).toString('hex'), { issuer, store: `sqlite:${join(dir, 'svc.db')}`, ...extra }) });

  it('are warned about when the issuer is not on loopback and no key-encryption key is set', async () => {
    const { lines } = await startUpLog(sqlite('https://login.example.com'), false);
    expect(warnings(lines).filter((m) => unencryptedWarning.test(m))).toHaveLength(1);
  });

  it('not with a key-encryption key, and not in a loopback-only development setup', async () => {
    process.env.SVC_TEST_WARN_KEK = randomBytes(32).toString('base64');
    const sealed = await startUpLog(sqlite('https://login.example.com', { signing: { keyEncryptionKeys: [{ env: 'SVC_TEST_WARN_KEK' }] } }), false);
    expect(warnings(sealed.lines)).toEqual([]);
    rmSync(join(dir, 'svc.db'), { force: true });
    for (const issuer of ['http://localhost:5000', 'http://127.0.0.1:5000', 'http://[::1]:5000']) {
      const local = await startUpLog(sqlite(issuer), false);
      expect(warnings(local.lines), issuer).toEqual([]);
    }
  });
});

describe('deprecated config names (issue 32)', () => {
  const pageSecret = 'the page secret under its old name, 32+ characters';

  it('deviceFlow.cookieSecret: one line saying its new name, pageSecret, and never the secret', async () => {
    const { lines, text } = await startUpLog(checkConfig({ store: 'memory', deviceFlow: { cookieSecret: pageSecret } }, dir));
    expect(warnings(lines).filter((m) => m.includes('pageSecret'))).toEqual([
      'deviceFlow.cookieSecret is now called pageSecret (it keys every page and the DPoP nonces, not only the device flow): rename it; the old name is still read',
    ]);
    expect(text).not.toContain(pageSecret);
  });

  it('pageSecret: no such line', async () => {
    const { lines } = await startUpLog(checkConfig({ store: 'memory', pageSecret }, dir));
    expect(warnings(lines).filter((m) => m.includes('pageSecret'))).toEqual([]);
  });
});
