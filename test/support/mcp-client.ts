/**
 * The MCP SDK's own client as an agent runs it: its OAuth client provider keeps what the SDK
 * hands it in memory, and "sends the user to the authorization URL" by keeping the URL for the
 * test, which walks our sign-in pages with a cookie-keeping browser and gives the SDK the code.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Browser } from './sign-in.js';

export const agentRedirect = 'http://127.0.0.1/mcp-callback';

export class TestAgentProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  saved: OAuthTokens | undefined;
  registered: OAuthClientInformationMixed | undefined;
  private verifier = '';

  /**
   * `clientId`: a client the operator registered; without it the SDK registers one itself
   * (RFC 7591). `clientMetadataUrl`: a client ID metadata document the SDK names instead.
   */
  constructor(private readonly options: { clientId?: string; clientMetadataUrl?: string } = {}) {}

  get redirectUrl(): string {
    return agentRedirect;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test agent', redirect_uris: [agentRedirect], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.registered ?? (this.options.clientId ? { client_id: this.options.clientId } : undefined);
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.registered = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}

/** The SDK's client connected to `serverUrl` with `provider`; throws the SDK's `UnauthorizedError` until it has a token. */
export async function connectAgent(serverUrl: string, provider: TestAgentProvider): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** Gives the SDK the code from the redirect: it trades it (PKCE, `resource`) and keeps the tokens in `provider`. */
export async function finishAgentAuth(serverUrl: string, provider: TestAgentProvider, code: string): Promise<void> {
  await new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }).finishAuth(code);
}

/** Walks the sign-in (and consent) pages from the SDK's authorization URL; returns the redirect back to the agent. */
export async function signInAt(authorizationUrl: URL, user: { username: string; password: string }): Promise<URL> {
  const browser = new Browser(authorizationUrl.origin);
  let page = await browser.get(authorizationUrl);
  if (page.html.includes('<h1>Sign in</h1>')) page = await browser.submit(page, { username: user.username, password: user.password });
  if (page.html.includes('<h1>Allow access?</h1>')) page = await browser.submit(page, { decision: 'approve' });
  if (page.status !== 303 || !page.location) throw new Error(`expected a redirect, got ${page.status}:\n${page.html}`);
  return page.location;
}
