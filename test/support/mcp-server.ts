/**
 * A Model Context Protocol server as a company would put behind our tokens: built with the MCP
 * SDK (streamable HTTP, stateless), publishing RFC 9728 protected resource metadata that names
 * our issuer, and accepting only a JWT access token our service signed for its own URL (`aud`,
 * checked with jose against the service's published keys). It has one tool, `whoami`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface TestMcpServer {
  /** The MCP endpoint, which is also the resource identifier (`…/mcp`). */
  readonly url: string;
  /** How many requests carried a token this server refused. */
  readonly refused: number;
  close(): Promise<void>;
}

export interface McpServerOptions {
  /** Our service's issuer, known once it runs. */
  readonly issuer: () => string;
  /** The scopes the metadata advertises (what the SDK's client asks for). */
  readonly scopes: readonly string[];
  readonly name: string;
}

export async function startMcpServer(options: McpServerOptions): Promise<TestMcpServer> {
  let base = '';
  let refused = 0;
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  const metadataPath = '/.well-known/oauth-protected-resource/mcp';

  function challenge(res: ServerResponse, error?: string): void {
    const parts = [`resource_metadata="${base}${metadataPath}"`, ...(error ? [`error="${error}"`] : [])];
    res.writeHead(401, { 'WWW-Authenticate': `Bearer ${parts.join(', ')}`, 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', base).pathname;
    if (req.method === 'GET' && path === metadataPath) {
      // RFC 9728 §3.2; `resource` is exactly the URL the client connects to.
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        resource: `${base}/mcp`, authorization_servers: [options.issuer()], scopes_supported: options.scopes, bearer_methods_supported: ['header'],
      }));
      return;
    }
    if (path !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return challenge(res);
    let subject: string;
    try {
      keys ??= createRemoteJWKSet(new URL(`${options.issuer()}/.well-known/openid-configuration/jwks`));
      const { payload } = await jwtVerify(token, keys, { issuer: options.issuer(), audience: `${base}/mcp`, typ: 'at+jwt' });
      subject = String(payload.sub);
    } catch {
      refused += 1;
      return challenge(res, 'invalid_token');
    }
    const body = await readJson(req);
    const mcp = new McpServer({ name: options.name, version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says who the token was issued for' }, async () => ({
      content: [{ type: 'text', text: `${options.name} serves ${subject}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    get refused() {
      return refused;
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}
