/**
 * Two nodes on one PostgreSQL schema: a workload token's `jti` spent at one node is a replay at
 * the other (the plugin's record is in the shared store), and when both nodes receive the same
 * token at once exactly one accepts it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../../support/pg.js';
import { postForm, startServer, type TestServer } from '../../support/server.js';
import { startWorkloadIssuer, type WorkloadIssuer } from '../../support/workload-issuer.js';

const skip = await postgresSkipReason('workload identity multi-node tests');
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const AUDIENCE = 'https://svc.federation.test';

describe.skipIf(skip)('workload identity on two nodes sharing PostgreSQL', () => {
  let schema: TestSchema;
  let issuer: WorkloadIssuer;
  let nodes: TestServer[] = [];
  beforeAll(async () => {
    schema = await createTestSchema('workload_nodes');
    issuer = await startWorkloadIssuer();
    const config = {
      issuer: 'https://svc.workload-nodes.test',
      store: schema.url,
      apiScopes: [{ name: 'api' }],
      apiResources: [{ name: 'api', scopes: ['api'] }],
      plugins: { 'workload-identity': { allowLoopback: true, issuers: [{ issuer: issuer.issuer('kubernetes'), audience: AUDIENCE, tlsCa: issuer.caPem }] } },
      clients: [{
        clientId: 'payments-api',
        clientSecrets: [{ type: 'FederatedCredential', value: JSON.stringify({ issuer: issuer.issuer('kubernetes'), subject: 'system:serviceaccount:payments:api' }) }],
        allowedGrantTypes: ['client_credentials'],
        allowedScopes: ['api'],
      }],
    };
    nodes = [await startServer(config), await startServer(config)];
  });
  afterAll(async () => {
    for (const node of nodes) await node.close();
    await issuer?.close();
    await schema?.drop();
  });

  const token = (node: TestServer, assertion: string) =>
    postForm(`${node.url}/connect/token`, { grant_type: 'client_credentials', client_id: 'payments-api', client_assertion_type: JWT_BEARER, client_assertion: assertion });

  it('a token accepted at node A is a replay at node B', async () => {
    const [a, b] = nodes as [TestServer, TestServer];
    const once = issuer.mint('kubernetes', AUDIENCE);
    expect((await token(a, once)).status).toBe(200);
    const replay = await token(b, once);
    expect({ status: replay.status, body: replay.body }).toEqual({ status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed.' } });
    const line = b.logs.find((l) => l.reqId === replay.headers.get('x-request-id') && l.msg === 'request rejected');
    expect(line?.detail).toMatch(/workload-identity: jti ".+" of issuer ".+" was already used \(replay\)/);
  });

  it('the same token at both nodes at once: exactly one succeeds', async () => {
    const once = issuer.mint('kubernetes', AUDIENCE);
    const answers = await Promise.all(nodes.map((node) => token(node, once)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
  });
});
