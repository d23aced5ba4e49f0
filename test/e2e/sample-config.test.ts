/**
 * The sample `svc.config.ts` as a running service (memory store, ephemeral port): every demo
 * client and API works with the demo credentials its comment names, in the flows the README's
 * curl examples walk through, including the private_key_jwt client with the demo key in
 * docs/demo-keys.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SignJWT, importPKCS8 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDefault } from '../../src/config/module-loader.js';
import type { UserConfig } from '../../src/config/schema.js';
import { basic, postForm, repoRoot, startServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  const sample = (await importDefault(join(repoRoot, 'svc.config.ts'))) as UserConfig;
  const { port: _port, store: _store, ...rest } = sample;
  server = await startServer(rest);
});

afterAll(async () => {
  await server?.close();
});

const token = (params: Record<string, string>, headers: Record<string, string> = {}) => postForm(`${server.url}/connect/token`, params, headers);
const introspect = (as: [string, string], value: string) =>
  postForm(`${server.url}/connect/introspect`, { token: value }, { authorization: basic(...as) });
const claimsOf = (jwt: unknown) => JSON.parse(Buffer.from(String(jwt).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

async function aliceToken(scope: string): Promise<Record<string, unknown>> {
  const reply = await token({ grant_type: 'password', username: 'alice', password: 'alice-password', scope }, { authorization: basic('web', 'password-client-secret') });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

describe('the sample config', () => {
  it('serves discovery and its keys', async () => {
    const doc = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, string[]>;
    expect(doc.grant_types_supported).toEqual(expect.arrayContaining(['client_credentials', 'password', 'delegation']));
    expect(doc.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'private_key_jwt']));
    expect((await fetch(`${server.url}/.well-known/openid-configuration/jwks`)).status).toBe(200);
  });

  it('m2m / m2m-secret: client_credentials with Basic and with the body', async () => {
    const viaBasic = await token({ grant_type: 'client_credentials', scope: 'api1.read' }, { authorization: basic('m2m', 'm2m-secret') });
    expect(viaBasic.status, JSON.stringify(viaBasic.body)).toBe(200);
    expect(viaBasic.body).toMatchObject({ token_type: 'Bearer', scope: 'api1.read', expires_in: 3600 });
    const viaBody = await token({ grant_type: 'client_credentials', client_id: 'm2m', client_secret: 'm2m-secret' });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body.scope).toBe('api1.read api1.write');
  });

  it('pkjwt-demo: private_key_jwt with docs/demo-keys/pkjwt-demo.pem', async () => {
    const key = await importPKCS8(readFileSync(join(repoRoot, 'docs/demo-keys/pkjwt-demo.pem'), 'utf8'), 'ES256');
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', typ: 'client-authentication+jwt' })
      .setIssuer('pkjwt-demo')
      .setSubject('pkjwt-demo')
      .setAudience(server.url)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(key);
    const reply = await token({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(claimsOf(reply.body.access_token)).toMatchObject({ sub: 'pkjwt-demo', scope: 'api1.read' });
  });

  it('m2m-reference / reference-secret: a reference token api1 (api1-secret) introspects, then the client revokes it', async () => {
    const issued = await token({ grant_type: 'client_credentials' }, { authorization: basic('m2m-reference', 'reference-secret') });
    expect(issued.status).toBe(200);
    const reference = issued.body.access_token as string;
    expect((await introspect(['api1', 'api1-secret'], reference)).body).toMatchObject({ active: true, client_id: 'm2m-reference', scope: 'api1.read' });
    const revoked = await postForm(`${server.url}/connect/revocation`, { token: reference }, { authorization: basic('m2m-reference', 'reference-secret') });
    expect(revoked.status).toBe(200);
    expect((await introspect(['api1', 'api1-secret'], reference)).body).toStrictEqual({ active: false });
  });

  it('web / password-client-secret with alice / alice-password: access, refresh and ID tokens', async () => {
    const body = await aliceToken('openid profile api1.read offline_access');
    expect(body).toMatchObject({ token_type: 'Bearer', refresh_token: expect.any(String), id_token: expect.any(String) });
    expect(claimsOf(body.access_token)).toMatchObject({ sub: '818727', client_id: 'web' });
    expect(claimsOf(body.id_token)).toMatchObject({ sub: '818727', name: 'Alice Smith' });
  });

  it('api1.client / delegation-secret delegates alice’s token to the back end, which backend (api2-secret) introspects', async () => {
    const user = await aliceToken('api1.read');
    const delegated = await token(
      { grant_type: 'delegation', scope: 'backend.read', token: user.access_token as string },
      { authorization: basic('api1.client', 'delegation-secret') },
    );
    expect(delegated.status, JSON.stringify(delegated.body)).toBe(200);
    expect(claimsOf(delegated.body.access_token)).toMatchObject({ sub: '818727', client_id: 'api1.client', aud: 'backend', act: { client_id: 'web' } });
    expect((await introspect(['backend', 'api2-secret'], delegated.body.access_token as string)).body).toMatchObject({ active: true, scope: 'backend.read' });
  });

  it('tv, a public client: device codes, then authorization_pending until someone approves', async () => {
    const codes = await postForm(`${server.url}/connect/deviceauthorization`, { client_id: 'tv', scope: 'openid api1.read' });
    expect(codes.status, JSON.stringify(codes.body)).toBe(200);
    const poll = await token({ client_id: 'tv', grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: codes.body.device_code as string });
    expect({ status: poll.status, error: poll.body.error }).toEqual({ status: 400, error: 'authorization_pending' });
  });
});
