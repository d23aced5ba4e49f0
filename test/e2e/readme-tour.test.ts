/**
 * The README's "A five-minute tour", run verbatim with bash, curl and the CLI against the sample
 * config: discovery, client_credentials both ways, private_key_jwt, a reference token introspected
 * and revoked, the password grant, delegation and the start of a device flow. The test server
 * listens on a port of its own, given to the tour as SVC, as a reader whose port 5000 is taken
 * would run it: the client assertion is signed for that issuer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, repoRoot, type TestServer } from '../support/server.js';
import { readmeSection, runReadmeScript, sampleConfig, shellBlocks } from '../support/readme.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await sampleConfig());
});
afterAll(async () => {
  await server?.close();
});

/** curl prints no newline after a body: split the run-together JSON answers. */
const answers = (stdout: string): Array<Record<string, unknown>> =>
  stdout.replace(/}\s*(?=\{)/g, '}\n').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

describe('README "A five-minute tour"', () => {
  it('works verbatim against the sample config', async () => {
    const [tour] = shellBlocks(readmeSection('## A five-minute tour', '## Dependencies and why'));
    const stdout = await runReadmeScript(tour!, { url: server.url, cwd: repoRoot });
    // Revocation answers 200 with an empty body, so it adds no line.
    const all = answers(stdout);
    expect(all).toHaveLength(11);
    const [discovery, jwks, basic, post, assertion, introspected, revoked, password, delegated, device, poll] = all;
    expect(discovery).toMatchObject({ issuer: server.url, token_endpoint: `${server.url}/connect/token` });
    expect(jwks).toMatchObject({ keys: expect.any(Array) });
    for (const token of [basic, post, assertion, password, delegated]) expect(token).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer' });
    expect(introspected).toMatchObject({ active: true });
    expect(revoked).toEqual({ active: false });
    expect(password).toMatchObject({ refresh_token: expect.any(String), id_token: expect.any(String) });
    expect(delegated).toMatchObject({ scope: 'backend.read' });
    expect(device).toMatchObject({ device_code: expect.any(String), verification_uri_complete: expect.stringContaining('/device?') });
    expect(poll).toMatchObject({ error: 'authorization_pending' });
  }, 60_000);
});
