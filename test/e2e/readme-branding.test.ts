/**
 * The README's "Branding the pages" runs verbatim: its `pages` block added to the sample config,
 * its three files written where it says, and its curl command against the server.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { docSection, runReadmeScript, sampleConfig, shellBlocks } from '../support/readme.js';
import { importDefault } from '../../src/config/module-loader.js';
import type { UserConfig } from '../../src/config/schema.js';

const section = docSection('docs/guides/signing-users-in.md', '## Branding the pages', '## Where the pages live');
const block = (lang: string): string => {
  const found = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section);
  if (!found) throw new Error(`no ${lang} block in "Branding the pages"`);
  return found[1]!;
};

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-readme-branding-'));
beforeAll(async () => {
  mkdirSync(join(dir, 'branding'));
  writeFileSync(join(dir, 'branding/logo.svg'), block('svg'));
  writeFileSync(join(dir, 'branding/acme.css'), block('css'));
  writeFileSync(join(dir, 'branding/sign-in.html'), block('html'));
  writeFileSync(join(dir, 'pages.config.ts'), `export default {\n${block('ts')}};\n`);
  const { pages } = (await importDefault(join(dir, 'pages.config.ts'))) as UserConfig;
  server = await startServer({ ...(await sampleConfig()), pages }, { configDir: dir });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/guides/signing-users-in.md "Branding the pages"', () => {
  it('works verbatim beside the sample config', async () => {
    const stdout = await runReadmeScript(shellBlocks(section)[0]!, { url: server.url, cwd: dir });
    expect(stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^<link rel="stylesheet" href="http:\/\/127\.0\.0\.1:\d+\/assets\/stylesheet-[0-9a-f]{12}\.css">$/),
      '<span class="product-name">Acme Cloud</span>',
      'Call the Acme Cloud help desk.',
    ]);
  });
});
