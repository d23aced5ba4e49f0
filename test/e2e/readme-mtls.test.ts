/**
 * The README's "The service terminates TLS" commands, run verbatim: openssl makes the
 * certificates, the `mtls.config.ts` shown there starts the service (only its port, 5443, is
 * swapped for a free one, in the config and the commands alike), and the curl commands get a
 * certificate-bound token and a 401 without the certificate.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { importDefault } from '../../src/config/module-loader.js';
import type { UserConfig } from '../../src/config/schema.js';
import { freePort, repoRoot, startServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'svc-readme-mtls-'));
let server: TestServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The fenced blocks of the section, in order. */
function blocks(): Array<{ lang: string; text: string }> {
  const readme = readFileSync(join(repoRoot, 'docs/guides/sender-constrained-tokens.md'), 'utf8');
  const start = readme.indexOf('### The service terminates TLS');
  const section = readme.slice(start, readme.indexOf('### Behind a TLS-terminating proxy', start));
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, text: m[2]! }));
}

describe('docs/guides/sender-constrained-tokens.md "The service terminates TLS"', () => {
  it('works verbatim: the certificates, the config and the curl commands', async () => {
    const [certificates, config, commands] = blocks();
    expect([certificates?.lang, config?.lang, commands?.lang]).toEqual(['sh', 'ts', 'sh']);
    const port = String(await freePort());
    await run('bash', ['-euo', 'pipefail', '-c', certificates!.text], { cwd: dir, timeout: 60_000 });
    writeFileSync(join(dir, 'mtls.config.ts'), config!.text.replaceAll('5443', port));
    const user = (await importDefault(join(dir, 'mtls.config.ts'))) as UserConfig;
    server = await startServer(user, { configDir: dir });
    expect(server.url).toBe(`https://127.0.0.1:${port}`);

    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', commands!.text.replaceAll('5443', port)], { cwd: dir, timeout: 60_000 });
    const [bound, refused, fingerprint] = stdout.replace(/}(?=\S)/g, '}\n').trim().split('\n');
    const token = JSON.parse(bound!) as { access_token: string; token_type: string };
    expect(token.token_type).toBe('Bearer');
    expect(decodeJwt(token.access_token).cnf).toEqual({ 'x5t#S256': expect.stringMatching(/^[\w-]{43}$/) });
    expect(JSON.parse(refused!)).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
    const hex = fingerprint!.replace(/^sha256 Fingerprint=/i, '').replaceAll(':', '');
    expect(Buffer.from(hex, 'hex').toString('base64url')).toBe((decodeJwt(token.access_token).cnf as Record<string, string>)['x5t#S256']);
  });
});
