/**
 * docs/guides/mcp.md, "Serving MCP clients": its config snippet is what the sample config gets,
 * and its shell commands run verbatim (only the base URL swapped for the test server's) and
 * print what the guide says they print.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { firstPartyPlugins, startServer, type TestServer } from '../support/server.js';
import { docSection, runReadmeScript, sampleConfig, shellBlocks } from '../support/readme.js';

const guide = 'docs/guides/mcp.md';
const section = docSection(guide, '## Serving MCP clients');
const dir = mkdtempSync(join(tmpdir(), 'svc-guide-mcp-'));
let server: TestServer;

beforeAll(async () => {
  // The snippet is two properties of the config object: evaluated as one.
  const snippet = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
  const settings = new Function(`return { ${snippet} };`)() as Pick<UserConfig, 'registration' | 'clientIdMetadataDocuments'>;
  expect(settings).toEqual({
    registration: { enabled: true, policy: 'open', allowedScopes: ['openid', 'api1.read'] },
    clientIdMetadataDocuments: { enabled: true, allowedScopes: ['openid', 'api1.read'] },
  });
  server = await startServer({ ...(await sampleConfig()), pluginDirs: [firstPartyPlugins], ...settings });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/guides/mcp.md "Serving MCP clients"', () => {
  it('registers a public client without a token, printing what the guide shows', async () => {
    const [register] = shellBlocks(section);
    const printed = /prints\n\n```\n(.*)\n```/.exec(section)![1]!;
    expect((await runReadmeScript(register!, { url: server.url, cwd: dir })).trim()).toBe(printed);
  });

  it('discovery advertises client ID metadata documents', async () => {
    const [, discovery] = shellBlocks(section);
    expect((await runReadmeScript(discovery!, { url: server.url, cwd: dir })).trim()).toBe('true');
  });

  it('names the draft revision and the SDK version the tests run', () => {
    const text = docSection(guide, '# Serving MCP clients');
    const sdk = JSON.parse(readFileSync(join(firstPartyPlugins, '../node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')) as { version: string };
    expect(text).toContain('draft-ietf-oauth-client-id-metadata-document-03');
    expect(text).toContain(`**${sdk.version}**`);
  });
});
