/**
 * Issue 36, "works with MCP out of the box": the Model Context Protocol SDK (@modelcontextprotocol/sdk
 * 1.32.2) as a real agent. Two MCP servers built with the SDK (streamable HTTP, on loopback) each
 * publish RFC 9728 protected resource metadata naming this service and accept only a token whose
 * `aud` is their own URL (checked with jose against our JWKS). The SDK's client, with its OAuth
 * client provider, is sent to the service, gets its client — by dynamic registration under the
 * open policy, or as a client ID metadata document served over https by the test — completes
 * PKCE while the test signs in on the pages, gets a token and calls a tool. The other MCP server
 * refuses that token.
 *
 * Each MCP server is an API resource whose `uri` is its URL: the SDK sends that URL as RFC 8707's
 * `resource`, and the token's `aud` is exactly it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { startServer, type TestServer } from '../support/server.js';
import { alice, Browser, signInAndAuthorize, signInConfig } from '../support/sign-in.js';
import { startDocumentServer, type DocumentServer } from '../support/document-server.js';

const redirect = 'http://127.0.0.1:33418/oauth/callback';

interface McpTestServer {
  readonly url: string;
  /** Requests refused for a missing or wrong token. */
  refused: number;
  close(): Promise<void>;
}

/** An MCP server with one tool, protected by the service's tokens for `scope`, addressed to its own URL. */
async function startMcpServer(name: string, scope: string, issuer: () => string): Promise<McpTestServer> {
  let url = '';
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  const state = { refused: 0 };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', url).pathname;
      // RFC 9728 §3: the metadata at the well-known path with the resource's path appended.
      if (path === '/.well-known/oauth-protected-resource/mcp' || path === '/.well-known/oauth-protected-resource') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
          resource: url, authorization_servers: [issuer()], scopes_supported: [scope], bearer_methods_supported: ['header'],
        }));
        return;
      }
      if (path !== '/mcp') return void res.writeHead(404).end();
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      let subject: string | undefined;
      try {
        jwks ??= createRemoteJWKSet(new URL(`${issuer()}/.well-known/openid-configuration/jwks`));
        subject = token === undefined ? undefined : (await jwtVerify(token, jwks, { issuer: issuer(), audience: url })).payload.sub;
      } catch {
        subject = undefined;
      }
      if (subject === undefined) {
        state.refused++;
        // RFC 9728 §5.1: where the client learns which authorization server to ask.
        res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', url).href}"` }).end();
        return;
      }
      const mcp = new McpServer({ name, version: '1.0.0' });
      mcp.registerTool('whoami', { description: 'Who the token was issued to' }, async () => ({ content: [{ type: 'text', text: `${name} serves ${subject}` }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    get refused() {
      return state.refused;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The SDK's provider interface, kept in memory; the authorization URL is caught for the test to open. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly redirectUrl = redirect;
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'MCP test agent', redirect_uris: [redirect], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none',
  };
  constructor(readonly clientMetadataUrl?: string) {}
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

let service: TestServer;
let first: McpTestServer;
let second: McpTestServer;
let documents: DocumentServer;

beforeAll(async () => {
  let issuer = '';
  [first, second, documents] = await Promise.all([startMcpServer('first', 'mcp1', () => issuer), startMcpServer('second', 'mcp2', () => issuer), startDocumentServer()]);
  service = await startServer(await signInConfig({
    clients: [],
    apiScopes: [{ name: 'mcp1', description: 'Use the first MCP server' }, { name: 'mcp2', description: 'Use the second MCP server' }],
    apiResources: [{ name: 'mcp-first', uri: first.url, scopes: ['mcp1'] }, { name: 'mcp-second', uri: second.url, scopes: ['mcp2'] }],
    registration: { enabled: true, policy: 'open', allowedScopes: ['mcp1', 'mcp2'] },
    clientIdMetadataDocuments: { enabled: true, allowedAddresses: ['127.0.0.1'], trustedCertificates: documents.caFile, allowedScopes: ['mcp1', 'mcp2'] },
  }));
  issuer = service.url;
  documents.json('/mcp-agent.json', {
    client_id: `${documents.url}/mcp-agent.json`, client_name: 'MCP test agent', redirect_uris: [redirect], token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'], response_types: ['code'],
  });
});
afterAll(async () => {
  await service?.close();
  await Promise.all([first?.close(), second?.close(), documents?.close()]);
});

/** Connect, be sent to the service, sign in and approve there, finish, connect again and call the tool. */
async function connectAndCallTool(provider: MemoryProvider): Promise<string> {
  const refusedBefore = first.refused;
  const transport = new StreamableHTTPClientTransport(new URL(first.url), { authProvider: provider });
  await expect(new Client({ name: 'agent', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(first.refused).toBe(refusedBefore + 1);
  const url = provider.authorizationUrl!;
  expect(url.origin + url.pathname).toBe(`${service.url}/connect/authorize`);
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  // RFC 8707: the SDK names the MCP server it wants a token for (the service reads it after the RFC 8707 work).
  expect(url.searchParams.get('resource')).toBe(first.url);
  const callback = await signInAndAuthorize(service, new Browser(service.url), Object.fromEntries(url.searchParams));
  expect(callback.origin + callback.pathname).toBe(redirect);
  await transport.finishAuth(callback.searchParams.get('code')!);

  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(first.url), { authProvider: provider }));
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  await client.close();
  return (result.content as Array<{ type: string; text: string }>)[0]!.text;
}

/** The second MCP server's answer to the first one's token. */
async function secondServerAnswers(token: string): Promise<number> {
  const res = await fetch(second.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
  });
  await res.body?.cancel();
  return res.status;
}

describe('the MCP SDK 1.32.2 as an agent client', () => {
  it('registers with dynamic registration (open policy), signs in with PKCE, calls a tool; the other server refuses the token', async () => {
    const provider = new MemoryProvider();
    expect(await connectAndCallTool(provider)).toBe(`first serves ${alice.subjectId}`);
    // Registered anonymously: a public client.
    expect(provider.info).toMatchObject({ token_endpoint_auth_method: 'none' });
    expect(provider.info!.client_id).not.toMatch(/^https:/);
    const token = provider.saved!.access_token;
    expect(decodeJwt(token)).toMatchObject({ aud: first.url, scope: 'mcp1' });
    expect(await secondServerAnswers(token)).toBe(401);
  });

  it('uses a client ID metadata document served over https by the test', async () => {
    const clientId = `${documents.url}/mcp-agent.json`;
    const provider = new MemoryProvider(clientId);
    expect(await connectAndCallTool(provider)).toBe(`first serves ${alice.subjectId}`);
    expect(provider.info!.client_id).toBe(clientId);
    const token = provider.saved!.access_token;
    expect(decodeJwt(token)).toMatchObject({ aud: first.url, client_id: clientId });
    expect(await secondServerAnswers(token)).toBe(401);
  });
});
