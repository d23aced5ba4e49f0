/**
 * "Works with MCP out of the box" (issue 36), proven with the Model Context Protocol SDK itself:
 * its client, told only the MCP server's URL, finds our service through the server's protected
 * resource metadata (RFC 9728) and our metadata (RFC 8414), sends the user to our sign-in page
 * with PKCE, trades the code and calls a tool with a token the MCP server checks with jose. The
 * token is for that MCP server only: a second one refuses it.
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { alice, signInConfig } from '../support/sign-in.js';
import { startMcpServer, type TestMcpServer } from '../support/mcp-server.js';
import { agentRedirect, connectAgent, finishAgentAuth, signInAt, TestAgentProvider } from '../support/mcp-client.js';

let service: TestServer;
let notes: TestMcpServer;
let billing: TestMcpServer;

beforeAll(async () => {
  const issuer = (): string => service.url;
  notes = await startMcpServer({ name: 'notes', issuer, scopes: ['notes.read'] });
  billing = await startMcpServer({ name: 'billing', issuer, scopes: ['billing.read'] });
  service = await startServer(await signInConfig({
    apiScopes: [{ name: 'notes.read', description: 'Read your notes' }, { name: 'billing.read', description: 'Read your invoices' }],
    apiResources: [
      { name: notes.url, scopes: ['notes.read'] },
      { name: billing.url, scopes: ['billing.read'] },
    ],
    clients: [{
      clientId: 'agent', clientName: 'Test agent', requireClientSecret: false, allowedGrantTypes: ['authorization_code', 'refresh_token'],
      allowedScopes: ['notes.read', 'billing.read'], redirectUris: [agentRedirect],
    }],
  }));
});
afterAll(async () => {
  await service?.close();
  await notes?.close();
  await billing?.close();
});

/** The SDK's whole dance: refused, sent to sign in, back with a code, connected. */
async function authorizedAgent(provider: TestAgentProvider, serverUrl: string) {
  await expect(connectAgent(serverUrl, provider)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl?.origin).toBe(service.url);
  const back = await signInAt(provider.authorizationUrl!, alice);
  expect(back.origin + back.pathname).toBe(agentRedirect);
  expect(back.searchParams.get('iss')).toBe(service.url);
  return back.searchParams.get('code')!;
}

describe('the MCP SDK as the agent', () => {
  it('with a client the operator registered: PKCE sign-in, a token for the notes server only, a tool call', async () => {
    const provider = new TestAgentProvider({ clientId: 'agent' });
    const code = await authorizedAgent(provider, notes.url);
    await finishAgentAuth(notes.url, provider, code);
    const access = provider.saved!.access_token;
    expect(decodeJwt(access)).toMatchObject({ iss: service.url, aud: notes.url, client_id: 'agent', sub: alice.subjectId, scope: 'notes.read' });
    expect(provider.authorizationUrl!.searchParams.get('code_challenge_method')).toBe('S256');

    const { client } = await connectAgent(notes.url, provider);
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: `notes serves ${alice.subjectId}` }]);
    await client.close();

    // The same token at the billing MCP server: refused (its aud is not billing's URL).
    const refusedBefore = billing.refused;
    await expect(connectAgent(billing.url, provider)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(billing.refused).toBe(refusedBefore + 1);
  });
});
