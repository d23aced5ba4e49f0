/**
 * The README's "Sign in with your identity provider": its Entra ID and Google configs pass the
 * config checks, and its curl walk runs verbatim against the tests' GitHub-shaped provider
 * with the sample config and the section's own `identityProviders` (only the base URLs are
 * swapped for the test servers').
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { validateUserConfig } from '../../src/config/validate.js';
import { docSection, runReadmeScript, sampleConfig, shellBlocks } from '../support/readme.js';
import { startServer, type TestServer } from '../support/server.js';
import { startGithubLike, type GithubLikeUpstream } from '../support/upstream-providers.js';

const section = docSection('docs/guides/signing-users-in.md', '## Sign in with your identity provider', '## The device page');
/** Each `identityProviders: [...]` of the section's ts blocks, evaluated as the config file would. */
const providerLists = [...section.matchAll(/```ts\nidentityProviders: (\[[\s\S]*?\n\]),\n```/g)].map(([, list]) => list!);
const evaluate = (list: string): UserConfig['identityProviders'] =>
  new Function('process', `return ${list.replace(/!,/g, ',')};`)({ env: { ENTRA_CLIENT_SECRET: 's', GOOGLE_CLIENT_SECRET: 's' } }) as UserConfig['identityProviders'];

let github: GithubLikeUpstream;
let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-readme-upstream-'));
beforeAll(async () => {
  github = await startGithubLike();
  const tryIt = evaluate(providerLists[2]!.replaceAll('http://127.0.0.1:5010', github.url));
  server = await startServer({ ...(await sampleConfig()), identityProviders: tryIt });
});
afterAll(async () => {
  await Promise.all([server?.close(), github?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/guides/signing-users-in.md "Sign in with your identity provider"', () => {
  it('has configs for Entra ID and Google that start', () => {
    expect(providerLists).toHaveLength(3);
    for (const list of providerLists.slice(0, 2)) expect(validateUserConfig({ identityProviders: evaluate(list) })).toEqual([]);
  });

  it('signs octocat in through the GitHub-shaped provider, verbatim', async () => {
    const run = async () => (await runReadmeScript(shellBlocks(section)[0]!, { url: server.url, cwd: dir })).trim().split('\n');
    const lines = await run();
    expect(lines.slice(0, 3)).toEqual(['Sign in with GitHub', 'Sign in with Contoso', `${github.url}/login/oauth/authorize`]);
    expect(lines[3]).toMatch(/^http:\/\/localhost:8080\/callback\?code=[\w-]+&state=up1&iss=/);
    // A fresh subject of 128 random bits, as every user the service keeps.
    expect(lines[4]).toMatch(/^[\w-]{22}$/);
    expect((await run())[4]).toBe(lines[4]);
  });
});
