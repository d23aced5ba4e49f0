/**
 * A client from the database authenticates with the key material in its secrets, like a config
 * client (issue 19 follow-up): a certificate added with `addCertificate` (what `svc clients
 * secret add --certificate` calls) works for private_key_jwt over HTTP and for
 * self_signed_tls_client_auth over real TLS, and stops working once the secret is removed.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { createEntryChecker } from '../../src/clients/check-entry.js';
import { createClientAdmin, type ClientAdmin } from '../../src/clients/client-admin.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { makePki, type Pki } from '../support/certificates.js';
import { freePort, postForm, startServer, type TestServer } from '../support/server.js';
import { httpsPost } from '../support/tls-client.js';
import { certificateOf, makeKey, type TestKey } from '../plugins/private-key-jwt/helpers.js';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const DAY = 86_400_000;
const denied = { error: 'invalid_client', error_description: 'Client authentication failed.' };
const m2m = { allowedGrantTypes: ['client_credentials'], allowedScopes: ['api'] };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(config: UserConfig): Promise<{ server: TestServer; admin: ClientAdmin }> {
  const store = createMemoryStore();
  server = await startServer({ apiScopes: [{ name: 'api' }], clientStores: { refreshInterval: 1 }, ...config }, { store });
  const admin = createClientAdmin({ records: store.clientRecords, checker: createEntryChecker(server.app.config, server.app.registry), config: server.app.config, clock: { now: () => Date.now() } });
  return { server, admin };
}

/** Polls until the answer has the status, or the bound (refresh interval plus slack) runs out. */
async function within<T extends { status: number }>(ms: number, attempt: () => Promise<T>, status: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const reply = await attempt();
    if (reply.status === status || Date.now() > until) return reply;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('private_key_jwt for a client from the database', () => {
  let key: TestKey;
  let der: Buffer;
  beforeAll(async () => {
    key = await makeKey('P-256');
    der = Buffer.from(await certificateOf(key, { notBefore: Date.now() - DAY, notAfter: Date.now() + 30 * DAY }));
  });

  const assertion = (s: TestServer, clientId: string) => {
    const iat = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: clientId, sub: clientId, aud: s.url, iat, exp: iat + 60, jti: randomUUID() }).setProtectedHeader({ alg: 'ES256' }).sign(key.privateKey);
  };
  const token = async (s: TestServer, clientId: string) =>
    postForm(`${s.url}/connect/token`, { grant_type: 'client_credentials', client_assertion_type: JWT_BEARER, client_assertion: await assertion(s, clientId) });

  it('authenticates with the stored certificate, and not after its secret is removed', async () => {
    const { server: s, admin } = await start({});
    await admin.add('client', 'stored-jwt', m2m);
    const pem = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
    const added = await admin.addCertificate('client', 'stored-jwt', pem, { description: 'laptop' });
    const record = await admin.show('client', 'stored-jwt');
    expect(record.secrets.find((x) => x.id === added.id)).toMatchObject({ type: 'X509CertificateBase64', value: der.toString('base64'), description: 'laptop' });

    const ok = await within(6000, () => token(s, 'stored-jwt'), 200);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', scope: 'api' });
    // The parsed key is kept with the loaded client: a second assertion verifies as well.
    expect((await token(s, 'stored-jwt')).status).toBe(200);

    await admin.removeSecret('client', 'stored-jwt', added.id);
    const refused = await within(6000, () => token(s, 'stored-jwt'), 401);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 401, body: denied });
    expect(s.logText()).toContain('private_key_jwt for \\"stored-jwt\\": no secret of a fitting type');
  });

  it('refuses a certificate that does not parse or has expired, before storing it', async () => {
    const { admin } = await start({});
    await admin.add('client', 'stored-jwt', m2m);
    await expect(admin.addCertificate('client', 'stored-jwt', 'not a certificate')).rejects.toThrow(/^not a PEM or DER X\.509 certificate \(/);
    const old = Buffer.from(await certificateOf(key, { notBefore: Date.now() - 30 * DAY, notAfter: Date.now() - DAY }));
    await expect(admin.addCertificate('client', 'stored-jwt', old)).rejects.toThrow(/^the certificate expired at \S+Z\.$/);
    expect((await admin.show('client', 'stored-jwt')).secrets.map((x) => x.type)).toEqual(['SharedSecret']);
  });
});

describe('mutual TLS for a client from the database', () => {
  let pki: Pki;
  beforeAll(async () => {
    pki = await makePki();
  });

  it('authenticates a stored self-signed certificate over TLS, and not after its secret is removed', async () => {
    const port = await freePort();
    const { server: s, admin } = await start({
      port,
      issuer: `https://127.0.0.1:${port}`,
      tls: { certificate: pki.file('server.pem'), key: pki.file('server.key'), requestClientCertificate: true },
      mtls: { clientCa: pki.file('client-ca.pem') },
    });
    const token = () =>
      httpsPost(`${s.url}/connect/token`, { grant_type: 'client_credentials', client_id: 'stored-native' }, {
        ca: pki.serverCa.certificatePem, cert: pki.selfSigned.certificatePem, key: pki.selfSigned.keyPem,
      });
    expect(await token()).toMatchObject({ status: 401, body: denied });

    await admin.add('client', 'stored-native', m2m);
    const added = await admin.addCertificate('client', 'stored-native', pki.selfSigned.certificatePem);
    expect(added.thumbprint).toBe(pki.selfSigned.thumbprint);
    const ok = await within(6000, token, 200);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', scope: 'api' });
    expect((await token()).status).toBe(200);

    await admin.removeSecret('client', 'stored-native', added.id);
    const refused = await within(6000, token, 401);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 401, body: denied });
    // Left with a shared secret only, the client's certificate can only bind tokens (RFC 8705 §4):
    // no certificate method is tried for it, as for a config client holding no certificate secret.
    const line = s.logs.find((l) => l.reqId === refused.headers['x-request-id'] && l.msg === 'request rejected');
    expect(line).toMatchObject({ error: 'invalid_client', detail: 'no credentials for client "stored-native"' });
  });
});
