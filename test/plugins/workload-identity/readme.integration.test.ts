/**
 * The plugin README's "Try it against the test issuer", verbatim: the test issuer (started here
 * as its first block starts it, on a free port instead of 8443), the `svc.config.ts` shown there
 * and the shell loop that gets a token with each platform's token.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { importDefault } from '../../../src/config/module-loader.js';
import type { UserConfig } from '../../../src/config/schema.js';
import { repoRoot, startServer, type TestServer } from '../../support/server.js';
import { startWorkloadIssuer, type WorkloadIssuer } from '../../support/workload-issuer.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-readme-workload-'));
let issuer: WorkloadIssuer | undefined;
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  await issuer?.close();
  rmSync(dir, { recursive: true, force: true });
});

function blocks(): Array<{ lang: string; text: string }> {
  const readme = readFileSync(join(repoRoot, 'plugins/workload-identity/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Try it against the test issuer'));
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, text: m[2]! }));
}

describe('plugins/workload-identity/README.md "Try it against the test issuer"', () => {
  it('works verbatim: the config and the shell loop, one token per platform', async () => {
    const [start, config, loop] = blocks();
    expect([start?.lang, config?.lang, loop?.lang]).toEqual(['sh', 'ts', 'sh']);
    expect(start!.text).toContain('npx jiti test/support/workload-issuer.ts 8443');
    issuer = await startWorkloadIssuer();
    const port = new URL(issuer.url).port;
    writeFileSync(join(dir, 'workload-issuer-ca.pem'), issuer.caPem);
    writeFileSync(join(dir, 'svc.config.ts'), config!.text.replaceAll('8443', port));
    const user = (await importDefault(join(dir, 'svc.config.ts'))) as UserConfig & { port?: number };
    const { port: _port, ...rest } = user;
    server = await startServer(rest, { configDir: dir });

    const script = loop!.text.replaceAll('8443', port);
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, timeout: 60_000, env: { ...process.env, SVC: server.url } });
    const answers = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(answers).toEqual(Array(3).fill(expect.objectContaining({ token_type: 'Bearer', scope: 'api', access_token: expect.any(String) })));
  });
});
