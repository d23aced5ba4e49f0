/**
 * docs/guides/getting-started.md, the `curl -u app:<client secret>` block after `svc init`, run
 * verbatim (only `<client secret>` replaced by the secret `svc init` printed, as a reader pastes
 * it) against a service started from the config `svc init` wrote: the first token a newcomer gets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInitService, type InitService } from '../support/init-service.js';
import { docSection, runReadmeScript, shellBlocks } from '../support/readme.js';

let service: InitService;

/** The guide's block that asks for the first token, as written. */
function tokenBlock(): string {
  const blocks = shellBlocks(docSection('docs/guides/getting-started.md', '## Install it as a package', '## CLI'));
  const block = blocks.find((b) => b.includes('curl -s -u app:<client secret>'));
  if (block === undefined) throw new Error('docs/guides/getting-started.md has no block with curl -s -u app:<client secret>');
  return block;
}

beforeAll(async () => {
  service = await startInitService('svc-getting-started-');
});
afterAll(() => service?.close());

describe('getting started: the first token with the secret svc init printed', () => {
  it('answers an access token for the client app with scope api.read', async () => {
    expect(service.values.clientSecret).toMatch(/^[\w-]{43}$/);
    const stdout = await runReadmeScript(tokenBlock().replace('<client secret>', service.values.clientSecret!), { url: service.server.url, cwd: service.dir });
    const answer = JSON.parse(stdout) as Record<string, unknown>;
    expect(answer).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: expect.any(Number), scope: 'api.read' });
    // A JWT for the API, issued to app.
    const claims = JSON.parse(Buffer.from((answer.access_token as string).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: service.server.url, client_id: 'app', aud: 'api', scope: 'api.read' });
  });

  it('with a wrong secret in its place, the same block answers invalid_client', async () => {
    const stdout = await runReadmeScript(tokenBlock().replace('<client secret>', 'not-the-secret'), { url: service.server.url, cwd: service.dir });
    expect(JSON.parse(stdout)).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed.' });
  });
});
