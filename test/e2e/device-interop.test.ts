/**
 * Interop: real client libraries run the device flow against the server — oauth4webapi step by
 * step, openid-client with its own polling loop — while a person approves through the page's
 * forms over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import { startServer, type TestServer } from '../support/server.js';
import { alice, bob, decideOverHttp, deviceClients, deviceConfig, deviceGrantType } from '../device/helpers.js';
import { realClockWithSkips } from '../support/clocks.js';
import { hashSecret } from '../../src/sdk/hash.js';

let server: TestServer;
const clock = realClockWithSkips();
let as: oauth.AuthorizationServer;
const insecure = { [oauth.allowInsecureRequests]: true };

beforeAll(async () => {
  // Real time here, so the libraries' own checks of iat/exp hold, moved forward where a test
  // would otherwise wait out a polling interval; a 1 s interval keeps the libraries' waits short.
  server = await startServer(
    await deviceConfig({
      clients: [
        ...deviceClients,
        { clientId: 'quick-tv', requireClientSecret: false, allowedGrantTypes: [deviceGrantType, 'refresh_token'], allowedScopes: ['openid', 'profile', 'api1.read'], allowOfflineAccess: true, pollingInterval: 1 },
        { clientId: 'quick-cli', clientSecrets: [{ value: hashSecret('quick-cli-secret') }], allowedGrantTypes: [deviceGrantType], allowedScopes: ['api1.read'], pollingInterval: 1 },
      ],
    }),
    { clock },
  );
  const issuer = new URL(server.url);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});
afterAll(() => server.close());

/** Token requests the server has answered authorization_pending so far. */
const pendingPolls = (): number => server.logs.filter((l) => l.msg === 'request rejected' && l.error === 'authorization_pending').length;

async function expectError(promise: Promise<unknown>, error: string): Promise<void> {
  const failure = await promise.catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(oauth.ResponseBodyError);
  expect((failure as oauth.ResponseBodyError).error).toBe(error);
}

describe('oauth4webapi', () => {
  it('public client: pending, slow_down, approval on the page, tokens with an id_token and a refresh token', async () => {
    const client: oauth.Client = { client_id: 'quick-tv' };
    const auth = oauth.None();
    const started = await oauth.processDeviceAuthorizationResponse(
      as, client, await oauth.deviceAuthorizationRequest(as, client, auth, { scope: 'openid profile offline_access api1.read' }, insecure),
    );
    expect(started.verification_uri).toBe(`${server.url}/device`);
    expect(started.interval).toBe(1);

    const pollOnce = async () => oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, auth, started.device_code, insecure));
    await expectError(pollOnce(), 'authorization_pending');
    await expectError(pollOnce(), 'slow_down');

    await decideOverHttp(server.url, started.verification_uri_complete!, alice, 'approve');
    clock.advance(6.1); // the interval after one slow_down: 1 + 5 s
    const tokens = await pollOnce();
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(claims).toMatchObject({ iss: server.url, sub: alice.subjectId, aud: 'quick-tv', name: 'Alice Smith' });

    // A used code is refused before any interval check.
    await expectError(pollOnce(), 'invalid_grant');
  }, 30_000);

  it('confidential client with client_secret_basic: a denial is access_denied', async () => {
    const client: oauth.Client = { client_id: 'quick-cli' };
    const auth = oauth.ClientSecretBasic('quick-cli-secret');
    const started = await oauth.processDeviceAuthorizationResponse(
      as, client, await oauth.deviceAuthorizationRequest(as, client, auth, { scope: 'api1.read' }, insecure),
    );
    await decideOverHttp(server.url, started.verification_uri_complete!, bob, 'deny');
    const response = await oauth.deviceCodeGrantRequest(as, client, auth, started.device_code, insecure);
    await expectError(oauth.processDeviceCodeResponse(as, client, response), 'access_denied');
  });
});

describe('openid-client', () => {
  it('polls on its own until the user approves, then gets the user’s token', async () => {
    const config = await openid.discovery(new URL(server.url), 'quick-cli', undefined, openid.ClientSecretPost('quick-cli-secret'), {
      execute: [openid.allowInsecureRequests],
    });
    const started = await openid.initiateDeviceAuthorization(config, { scope: 'api1.read' });
    const before = pendingPolls();
    const approval = (async () => {
      // A poll goes by first.
      while (pendingPolls() === before) await new Promise((resolve) => setTimeout(resolve, 20));
      await decideOverHttp(server.url, started.verification_uri_complete!, bob, 'approve');
    })();
    const tokens = await openid.pollDeviceAuthorizationGrant(config, started);
    await approval;
    expect(tokens.scope).toBe('api1.read');
    const payload = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(payload.sub).toBe(bob.subjectId);
  }, 30_000);
});
