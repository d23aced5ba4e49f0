/**
 * Workload identity federation end to end: the service trusts a stand-in Kubernetes, GitHub
 * Actions and SPIRE issuer (https on loopback, its own CA), and clients authenticate with their
 * tokens. Every failure is a 401 invalid_client to the caller with its reason in the log only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import type { ClientConfig, UserConfig } from '../../../src/config/schema.js';
import { manualClock, type ManualClock } from '../../device/helpers.js';
import { postForm, startServer, type TestServer } from '../../support/server.js';
import { startWorkloadIssuer, type WorkloadIssuer } from '../../support/workload-issuer.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const AUDIENCE = 'https://svc.federation.test';
type Reply = Awaited<ReturnType<typeof postForm>>;

let clock: ManualClock;
let issuer: WorkloadIssuer;
let server: TestServer;
const sent: string[] = [];

const federated = (clientId: string, credential: Record<string, unknown>, rest: Partial<ClientConfig> = {}): ClientConfig => ({
  clientId,
  clientSecrets: [{ type: 'FederatedCredential', value: JSON.stringify(credential) }],
  allowedGrantTypes: ['client_credentials'],
  allowedScopes: ['api'],
  ...rest,
});

export function federationConfig(at: WorkloadIssuer): UserConfig {
  const trusted = (platform: 'kubernetes' | 'github' | 'spiffe' | 'down' | 'slow', extra: Record<string, unknown> = {}) => ({
    issuer: at.issuer(platform), audience: AUDIENCE, tlsCa: at.caPem, ...extra,
  });
  return {
    apiScopes: [{ name: 'api' }],
    identityResources: [{ name: 'openid', claims: ['sub'] }],
    apiResources: [
      { name: 'api', scopes: ['api'], secrets: [{ type: 'FederatedCredential', value: JSON.stringify({ issuer: at.issuer('kubernetes'), subject: 'system:serviceaccount:payments:api' }) }] },
    ],
    plugins: {
      'workload-identity': {
        allowLoopback: true,
        fetchTimeout: 0.5,
        issuers: [
          trusted('kubernetes', { maxLifetime: 3600 }),
          trusted('github', { claims: { repository_owner: 'acme' } }),
          trusted('spiffe', { algorithms: ['ES256'] }),
          trusted('down'),
          trusted('slow'),
        ],
      },
    },
    clients: [
      federated('payments-api', { issuer: at.issuer('kubernetes'), subject: 'system:serviceaccount:payments:api', claims: { 'kubernetes.io/namespace': 'payments' } }),
      federated('deployer', { issuer: at.issuer('github'), subject: 'repo:acme/app:environment:production', claims: { ref: 'refs/heads/main' } }),
      federated('release-jobs', { issuer: at.issuer('github'), subjectPattern: 'repo:acme/app:*', claims: { ref: { pattern: 'refs/heads/release-*' } } }),
      federated('mesh-api', { issuer: at.issuer('spiffe'), subject: 'spiffe://acme.example/ns/payments/sa/api' }),
      federated('down-client', { issuer: at.issuer('down'), subject: 'system:serviceaccount:payments:api' }),
      federated('slow-client', { issuer: at.issuer('slow'), subject: 'system:serviceaccount:payments:api' }),
      federated('device-app', { issuer: at.issuer('kubernetes'), subject: 'system:serviceaccount:payments:api' }, {
        allowedGrantTypes: ['urn:ietf:params:oauth:grant-type:device_code'],
      }),
      federated('web-app', { issuer: at.issuer('kubernetes'), subject: 'system:serviceaccount:payments:api' }, {
        allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['https://web.example/cb'],
      }),
    ],
  };
}

beforeAll(async () => {
  clock = manualClock();
  issuer = await startWorkloadIssuer({ now: clock.now });
  server = await startServer(federationConfig(issuer), { clock });
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
});

function post(path: string, assertion: string, params: Record<string, string>): Promise<Reply> {
  sent.push(assertion);
  return postForm(`${server.url}${path}`, { client_assertion_type: JWT_BEARER, client_assertion: assertion, ...params });
}
const token = (clientId: string, assertion: string) => post('/connect/token', assertion, { grant_type: 'client_credentials', client_id: clientId });

function expectRejected(reply: Reply, reason: string | RegExp): void {
  expect({ status: reply.status, body: reply.body }).toEqual({ status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed.' } });
  const line = server.logs.find((l) => l.reqId === reply.headers.get('x-request-id') && l.msg === 'request rejected');
  expect(line, 'a log line for the rejected request').toBeDefined();
  if (typeof reason === 'string') expect(line!.detail).toContain(reason);
  else expect(line!.detail).toMatch(reason);
}

describe('each platform authenticates its client (client_credentials)', () => {
  it('a Kubernetes projected service account token', async () => {
    const reply = await token('payments-api', issuer.mint('kubernetes', AUDIENCE));
    expect(reply.status).toBe(200);
    expect(decodeJwt(reply.body.access_token as string)).toMatchObject({ client_id: 'payments-api', sub: 'payments-api' });
  });

  it('a GitHub Actions OIDC token', async () => {
    const reply = await token('deployer', issuer.mint('github', AUDIENCE));
    expect(reply.status).toBe(200);
    expect(decodeJwt(reply.body.access_token as string).client_id).toBe('deployer');
  });

  it('a SPIFFE JWT-SVID (no jti: not single-use)', async () => {
    const svid = issuer.mint('spiffe', AUDIENCE);
    expect((await token('mesh-api', svid)).status).toBe(200);
    expect((await token('mesh-api', svid)).status).toBe(200);
  });

  it('a subject pattern and a claim pattern, where the credential writes them', async () => {
    const release = issuer.mint('github', AUDIENCE, { claims: { sub: 'repo:acme/app:ref:refs/heads/release-2', ref: 'refs/heads/release-2' } });
    expect((await token('release-jobs', release)).status).toBe(200);
    expectRejected(await token('release-jobs', issuer.mint('github', AUDIENCE)), 'claim ref is "refs/heads/main", expected pattern "refs/heads/release-*"');
  });

  it('logs no token', () => {
    const logs = JSON.stringify(server.logs);
    for (const jwt of sent) expect(logs).not.toContain(jwt.split('.')[2]);
  });
});

describe('wherever client authentication works', () => {
  it('introspection, with an API resource holding a FederatedCredential', async () => {
    const accessToken = (await token('payments-api', issuer.mint('kubernetes', AUDIENCE))).body.access_token as string;
    const reply = await post('/connect/introspect', issuer.mint('kubernetes', AUDIENCE), { token: accessToken, client_id: 'api' });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ active: true, client_id: 'payments-api' });
  });

  it('revocation', async () => {
    // RFC 7009 §2.2: an unknown token is answered 200 too, once the client authenticated.
    const reply = await post('/connect/revocation', issuer.mint('kubernetes', AUDIENCE), { token: 'not-a-token-of-ours', client_id: 'payments-api' });
    expect(reply.status).toBe(200);
    expectRejected(await post('/connect/revocation', issuer.mint('github', AUDIENCE), { token: 'not-a-token-of-ours', client_id: 'payments-api' }), 'no FederatedCredential of client "payments-api" names issuer');
  });

  it('device authorization', async () => {
    const reply = await post('/connect/deviceauthorization', issuer.mint('kubernetes', AUDIENCE), { client_id: 'device-app' });
    expect(reply.status).toBe(200);
    expect(reply.body.device_code).toEqual(expect.any(String));
  });

  it('pushed authorization requests', async () => {
    const reply = await post('/connect/par', issuer.mint('kubernetes', AUDIENCE), {
      client_id: 'web-app', response_type: 'code', redirect_uri: 'https://web.example/cb', scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
    });
    expect(reply.status).toBe(201);
    expect(reply.body.request_uri).toEqual(expect.any(String));
  });

  it('discovery lists private_key_jwt and nothing new', async () => {
    const document = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(document.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(JSON.stringify(document)).not.toMatch(/federat|workload/i);
  });
});

describe('every failure is invalid_client, its reason in the log', () => {
  it('wrong audience', async () => {
    expectRejected(await token('payments-api', issuer.mint('kubernetes', 'https://someone-else.example')), 'aud ["https://someone-else.example"] does not include "https://svc.federation.test"');
  });

  it('another subject', async () => {
    const other = issuer.mint('kubernetes', AUDIENCE, { claims: { sub: 'system:serviceaccount:payments:worker' } });
    expectRejected(await token('payments-api', other), 'matches no FederatedCredential of client "payments-api" for this issuer: sub is not "system:serviceaccount:payments:api"');
  });

  it('a claim condition of the credential not met (namespace)', async () => {
    const elsewhere = issuer.mint('kubernetes', AUDIENCE, { claims: { 'kubernetes.io': { namespace: 'billing' } } });
    expectRejected(await token('payments-api', elsewhere), 'claim kubernetes.io/namespace is "billing", expected "payments"');
  });

  it("an issuer's claim rule not met (GitHub repository_owner)", async () => {
    const fork = issuer.mint('github', AUDIENCE, { claims: { repository_owner: 'mallory' } });
    expectRejected(await token('deployer', fork), 'issuer rule: claim repository_owner is "mallory", expected "acme"');
  });

  it('expired', async () => {
    const old = issuer.mint('kubernetes', AUDIENCE);
    clock.advance(601 + 60);
    expectRejected(await token('payments-api', old), /^private_key_jwt for "payments-api": .*workload-identity: expired at /);
  });

  it('a lifetime over maxLifetime', async () => {
    const now = Math.floor(clock.now() / 1000);
    const yearLong = issuer.mint('kubernetes', AUDIENCE, { claims: { exp: now + 365 * 86_400 } });
    expectRejected(await token('payments-api', yearLong), "exceeds the issuer's maxLifetime 3600s");
  });

  it('replayed', async () => {
    const once = issuer.mint('kubernetes', AUDIENCE);
    expect((await token('payments-api', once)).status).toBe(200);
    expectRejected(await token('payments-api', once), /jti ".+" of issuer ".+\/kubernetes" was already used \(replay\)/);
  });

  it('an unknown issuer', async () => {
    const stranger = issuer.mint('kubernetes', AUDIENCE, { claims: { iss: 'https://evil.example' } });
    expectRejected(await token('payments-api', stranger), 'iss "https://evil.example" is not a trusted issuer');
  });

  it('an algorithm not allowed for the issuer', async () => {
    const rsa = issuer.mint('spiffe', AUDIENCE, { key: issuer.strayKey('RS256') });
    expectRejected(await token('mesh-api', rsa), 'alg "RS256" is not allowed for issuer');
  });

  it('a forged signature (right kid, another key)', async () => {
    const stray = issuer.strayKey('RS256');
    const kid = (JSON.parse(Buffer.from(issuer.mint('kubernetes', AUDIENCE).split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;
    expectRejected(await token('payments-api', issuer.mint('kubernetes', AUDIENCE, { key: stray, header: { kid } })), 'signature does not verify');
  });

  it('an unknown kid: refused, and a stream of them costs no fetch per request', async () => {
    const stray = issuer.strayKey('RS256');
    const before = issuer.hits.get('/kubernetes/openid/v1/jwks') ?? 0;
    for (let i = 0; i < 3; i++) {
      expectRejected(await token('payments-api', issuer.mint('kubernetes', AUDIENCE, { key: stray })), `has no key with kid "${stray.kid}"`);
    }
    expect((issuer.hits.get('/kubernetes/openid/v1/jwks') ?? 0) - before).toBeLessThanOrEqual(1);
  });

  it('the issuer is down: refused, and other issuers still work', async () => {
    expectRejected(await token('down-client', issuer.mint('kubernetes', AUDIENCE, { claims: { iss: issuer.issuer('down') } })), /the keys of issuer ".+\/down" are unavailable \(discovery document .+: .+\)/);
    expect((await token('payments-api', issuer.mint('kubernetes', AUDIENCE))).status).toBe(200);
  });

  it('the issuer is slow: refused after fetchTimeout, never a 500', async () => {
    const started = performance.now();
    expectRejected(await token('slow-client', issuer.mint('kubernetes', AUDIENCE, { claims: { iss: issuer.issuer('slow') } })), 'no complete answer within 500 ms');
    expect(performance.now() - started).toBeLessThan(3000);
    // Within minRefreshInterval the next request does not wait on the issuer again.
    const again = performance.now();
    expectRejected(await token('slow-client', issuer.mint('kubernetes', AUDIENCE, { claims: { iss: issuer.issuer('slow') } })), 'are unavailable');
    expect(performance.now() - again).toBeLessThan(400);
  });

  it('a token without client_id names no client', async () => {
    const reply = await postForm(`${server.url}/connect/token`, { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: issuer.mint('kubernetes', AUDIENCE) });
    expectRejected(reply, 'unknown client');
  });
});

describe('key rotation at the issuer', () => {
  it('is picked up on the first token with the new kid once minRefreshInterval has passed', async () => {
    clock.advance(61);
    // An unknown kid fetches the key set (the interval has passed): from here the interval runs.
    const stray = issuer.strayKey('RS256');
    expectRejected(await token('payments-api', issuer.mint('kubernetes', AUDIENCE, { key: stray })), `has no key with kid "${stray.kid}"`);
    const kid = issuer.rotate('kubernetes');
    // Just fetched: the new kid waits for the interval (no fetch per request).
    expectRejected(await token('payments-api', issuer.mint('kubernetes', AUDIENCE)), `has no key with kid "${kid}"`);
    clock.advance(61);
    expect((await token('payments-api', issuer.mint('kubernetes', AUDIENCE))).status).toBe(200);
  });
});
