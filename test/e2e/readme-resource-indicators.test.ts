/**
 * docs/guides/resource-indicators.md: its config added to the sample config as the guide says,
 * and the curl commands of "Tokens for one API" run verbatim with bash against it. Only the base
 * URL is swapped for the test server's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import type { UserConfig } from '../../src/config/schema.js';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { docSection, runReadmeScript, sampleConfig, shellBlocks } from '../support/readme.js';

const guide = 'docs/guides/resource-indicators.md';
let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-guide-'));

/** The guide's config block: `apiScopes`, `apiResources` and `clients` to add to the sample's. */
function guideConfig(): Pick<UserConfig, 'apiScopes' | 'apiResources' | 'clients'> {
  const block = /```ts\n([\s\S]*?)```/.exec(docSection(guide, '## Naming an API', '## Tokens for one API'))![1]!;
  return new Function(`"use strict"; return ({${block}});`)() as Pick<UserConfig, 'apiScopes' | 'apiResources' | 'clients'>;
}

beforeAll(async () => {
  const sample = await sampleConfig();
  const added = guideConfig();
  server = await startServer({
    ...sample,
    apiScopes: [...(sample.apiScopes ?? []), ...(added.apiScopes ?? [])],
    apiResources: [...(sample.apiResources ?? []), ...(added.apiResources ?? [])],
    clients: [...(sample.clients ?? []), ...(added.clients ?? [])],
  });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/guides/resource-indicators.md "Tokens for one API"', () => {
  const blocks = () => shellBlocks(docSection(guide, '## Tokens for one API', '## In the code flow'));

  it('has the three commands it describes', () => {
    expect(blocks()).toHaveLength(3);
  });

  it('gets a token for the billing API alone, which billing introspects and reports does not', async () => {
    const body = JSON.parse(await runReadmeScript(blocks()[0]!, { url: server.url, cwd: dir })) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'billing.read' });
    expect(decodeJwt(body.access_token as string)).toMatchObject({ aud: 'https://billing.example.com/', scope: 'billing.read', client_id: 'agent' });
    const asBilling = await postForm(`${server.url}/connect/introspect`, { token: body.access_token as string }, { authorization: basic('billing', 'billing-secret') });
    expect(asBilling.body).toMatchObject({ active: true, aud: 'https://billing.example.com/', scope: 'billing.read' });
  });

  it('names both APIs with resource repeated', async () => {
    const body = JSON.parse(await runReadmeScript(blocks()[1]!, { url: server.url, cwd: dir })) as Record<string, unknown>;
    expect(decodeJwt(body.access_token as string)).toMatchObject({
      aud: ['https://billing.example.com/', 'https://reports.example.com/'], scope: 'billing.read reports.read',
    });
  });

  it('answers an unknown API as the guide shows', async () => {
    const section = docSection(guide, '## Tokens for one API', '## In the code flow');
    const shown = /```json\n([\s\S]*?)```/.exec(section)![1]!.trim();
    const answer = (await runReadmeScript(blocks()[2]!, { url: server.url, cwd: dir })).trim();
    expect(answer).toBe(shown);
  });
});
