/**
 * DPoP across nodes (issue 17): two apps behind one issuer on one PostgreSQL schema. A proof
 * accepted by one node is a replay at the other (the `jti` is recorded in the shared store), and
 * a server nonce one node handed out is accepted by the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSchema, postgresSkipReason, type TestSchema } from '../support/pg.js';
import { postForm, startServer, type TestServer } from '../support/server.js';
import { dpopKey, type DpopKey } from '../support/dpop.js';
import { auth, baseConfig } from '../fixtures/grant-plugins/world.js';

const skip = await postgresSkipReason('DPoP multi-node tests');
// The public URL both nodes stand behind: the htu of every proof, whichever node answers.
const issuer = 'https://svc.dpop-nodes.test';
const tokenUrl = `${issuer}/connect/token`;

describe.skipIf(skip)('DPoP on two nodes sharing PostgreSQL', () => {
  let schema: TestSchema;
  let nodes: TestServer[] = [];
  let key: DpopKey;
  beforeAll(async () => {
    schema = await createTestSchema('dpop_nodes');
    key = await dpopKey();
    const config = { ...baseConfig, issuer, store: schema.url, dpop: { requireNonce: true } };
    nodes = [await startServer(config), await startServer(config)];
  });
  afterAll(async () => {
    for (const node of nodes) await node.close();
    await schema?.drop();
  });

  const clientCredentials = (node: TestServer, proof: string) =>
    postForm(`${node.url}/connect/token`, { grant_type: 'client_credentials', scope: 'api1.read' }, { ...auth('m2m'), DPoP: proof });

  it('a nonce from node A works at node B; the same proof again at node A is a replay', async () => {
    const [a, b] = nodes as [TestServer, TestServer];
    const first = await clientCredentials(a, key.proof({ htu: tokenUrl }));
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('use_dpop_nonce');
    const nonce = first.headers.get('dpop-nonce')!;

    const proof = key.proof({ htu: tokenUrl, nonce });
    const atB = await clientCredentials(b, proof);
    expect(atB.status).toBe(200);
    expect(atB.body.token_type).toBe('DPoP');

    const replayAtA = await clientCredentials(a, proof);
    expect(replayAtA.status).toBe(400);
    expect(replayAtA.body).toEqual({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof is invalid.' });
    expect(a.logs.some((l) => l.detail === 'jti was already used (replay)')).toBe(true);
  });

  it('refuses the replay when both nodes receive the proof at once: exactly one succeeds', async () => {
    const [a, b] = nodes as [TestServer, TestServer];
    const nonce = (await clientCredentials(a, key.proof({ htu: tokenUrl }))).headers.get('dpop-nonce')!;
    const proof = key.proof({ htu: tokenUrl, nonce });
    const answers = await Promise.all([clientCredentials(a, proof), clientCredentials(b, proof)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
  });
});
