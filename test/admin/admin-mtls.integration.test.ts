/**
 * The admin API behind mutual TLS (`admin.tls`, issue 39), over real HTTPS with certificates made
 * for the test: curl, Node's fetch (undici, with a dispatcher that presents a certificate) and
 * `svc --server` each call it as an operator named by subject or by thumbprint; a caller without
 * a certificate, with one the CA did not issue, an expired one, or one no entry names hears a
 * problem (401 or 403), never a TLS failure; the audit events name the certificate that acted.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserConfig } from '../../src/config/schema.js';
import { issue, makePki, partnerSubject, type Issued, type Pki } from '../support/certificates.js';
import { docSection, runReadmeScript, shellBlocks } from '../support/readme.js';
import { validateUserConfig } from '../../src/config/validate.js';
import { startServer, type TestServer } from '../support/server.js';
import { runCliWith } from '../support/svc-process.js';

let pki: Pki;
let intern: Issued;
let server: TestServer;
let adminUrl: string;

beforeAll(async () => {
  pki = await makePki();
  // Issued by the operators' CA like the others, but named by no entry.
  intern = await issue(pki.clientCa, 'CN=intern, O=Example');
  writeFileSync(pki.file('intern.pem'), intern.certificatePem);
  writeFileSync(pki.file('intern.key'), intern.keyPem, { mode: 0o600 });
  const config: UserConfig = {
    admin: {
      port: 0,
      tls: {
        certificate: 'server.pem', key: 'server.key', clientCa: 'client-ca.pem',
        clients: [
          // The subject the RFC 4514 way, as an operator writes it; Node prints it the other way round.
          { subject: partnerSubject, operator: 'ops-partner', scope: 'admin' },
          // Pinned, as `openssl x509 -noout -fingerprint -sha256` prints it.
          { thumbprint: pki.stranger.thumbprintHex, operator: 'ci-reader', scope: 'admin.read' },
        ],
      },
    },
  };
  server = await startServer(config, { configDir: pki.dir });
  ({ url: adminUrl } = await server.app.listenAdmin(0, '127.0.0.1'));
});
afterAll(async () => {
  await server?.close();
});

const adminEvents = () => server.logs.filter((l) => (l.event as { type?: string } | undefined)?.type === 'admin.request').map((l) => l.event as Record<string, unknown>);

/** curl over HTTPS trusting the test's server CA, presenting `who`'s certificate (or none); status, content type and JSON body. */
async function curl(who: string | undefined, path: string, ...args: string[]): Promise<{ status: number; type: string; body: Record<string, unknown> }> {
  const tls = ['--cacert', pki.file('server-ca.pem'), ...(who ? ['--cert', pki.file(`${who}.pem`), '--key', pki.file(`${who}.key`)] : [])];
  const { stdout } = await promisify(execFile)('curl', ['-sS', '-w', '\n%{http_code} %{content_type}', ...tls, ...args, adminUrl + path], { timeout: 20_000 });
  const cut = stdout.lastIndexOf('\n');
  const trailer = stdout.slice(cut + 1);
  const space = trailer.indexOf(' ');
  return { status: Number(trailer.slice(0, space)), type: trailer.slice(space + 1), body: JSON.parse(stdout.slice(0, cut)) as Record<string, unknown> };
}

/**
 * Node's fetch is undici; a dispatcher of its own presents the certificate. undici is not a
 * dependency here, so its `Agent` is taken from the dispatcher Node's fetch installs (what
 * `new Agent(...)` from the undici package gives an application that has it).
 */
async function undiciFetch(who: Issued): Promise<typeof fetch> {
  await fetch('http://127.0.0.1:1/').catch(() => undefined);
  const Agent = (globalThis as Record<symbol, { constructor: new (options: unknown) => unknown }>)[Symbol.for('undici.globalDispatcher.1')]!.constructor;
  const dispatcher = new Agent({ connect: { ca: pki.serverCa.certificatePem, cert: who.certificatePem, key: who.keyPem } });
  return ((url: string, init: RequestInit = {}) => fetch(url, { ...init, dispatcher } as RequestInit)) as typeof fetch;
}

describe('the admin API behind mutual TLS', () => {
  it('listens on https', () => {
    expect(adminUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('curl with a certificate named by subject: reads and changes, as an operator with scope admin', async () => {
    expect(await curl('partner', '/clients')).toEqual({ status: 200, type: 'application/json; charset=utf-8', body: { items: [] } });
    const made = await curl('partner', '/clients', '-H', 'content-type: application/json', '-d', JSON.stringify({ clientId: 'billing', allowedGrantTypes: ['client_credentials'], allowedScopes: [] }));
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ client: { clientId: 'billing' }, secret: { value: expect.stringMatching(/^[\w-]{43}$/) } });
  });

  it('curl with a certificate pinned by thumbprint with scope admin.read: reads, and a change is 403', async () => {
    expect((await curl('stranger', '/clients/billing')).body).toMatchObject({ clientId: 'billing' });
    expect(await curl('stranger', '/clients/billing', '-X', 'DELETE', '-H', 'if-match: "x"')).toEqual({
      status: 403, type: 'application/problem+json',
      body: {
        type: 'tag:svc-token-service,2026:problem:insufficient-scope', title: 'The caller\'s token or certificate does not allow this', status: 403,
        detail: 'This changes the service: the client certificate\'s entry in admin.tls.clients needs scope "admin" (it has "admin.read").',
      },
    });
  });

  it('curl without a certificate: a 401 problem, whatever token it sends', async () => {
    const refused = {
      status: 401, type: 'application/problem+json',
      body: {
        type: 'tag:svc-token-service,2026:problem:unauthenticated', title: 'An admin access token or client certificate is required', status: 401,
        detail: 'Present a client certificate issued by the CA in admin.tls.clientCa: this admin API takes mutual TLS, not access tokens.',
      },
    };
    expect(await curl(undefined, '/clients')).toEqual(refused);
    expect(await curl(undefined, '/clients', '-H', 'authorization: Bearer some-token')).toEqual(refused);
  });

  it('curl with a certificate another CA issued under the partner\'s subject, an expired one, or a self-signed one: 401, saying why', async () => {
    const detail = async (who: string) => {
      const answer = await curl(who, '/clients');
      expect([answer.status, answer.type]).toEqual([401, 'application/problem+json']);
      return answer.body.detail;
    };
    expect(await detail('impostor')).toBe('The client certificate is not accepted: admin.tls.clientCa did not issue it.');
    expect(await detail('expired')).toBe('The client certificate is not accepted: it has expired.');
    expect(await detail('selfSigned')).toBe('The client certificate is not accepted: it is self-signed, not issued by admin.tls.clientCa.');
  });

  it('curl with a certificate the CA issued that no entry names: 403, naming the certificate', async () => {
    expect(await curl('intern', '/clients')).toEqual({
      status: 403, type: 'application/problem+json',
      body: {
        type: 'tag:svc-token-service,2026:problem:insufficient-scope', title: 'The caller\'s token or certificate does not allow this', status: 403,
        detail: `The client certificate "CN=intern, O=Example" (SHA-256 ${intern.thumbprint}) is not one of admin.tls.clients.`,
      },
    });
  });

  it('the OpenAPI document is open to a caller without a certificate, as on plain HTTP', async () => {
    const answer = await curl(undefined, '/openapi.json');
    expect(answer.status).toBe(200);
    expect((answer.body.components as { securitySchemes: Record<string, unknown> }).securitySchemes.adminCertificate).toMatchObject({ type: 'mutualTLS' });
  });

  it('Node fetch (undici) with the partner\'s certificate reads the client; with the intern\'s it is refused with a problem', async () => {
    const asPartner = await undiciFetch(pki.partner);
    const read = await asPartner(`${adminUrl}/clients/billing`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toMatch(/^"/);
    expect(await read.json()).toMatchObject({ clientId: 'billing' });
    const refused = await (await undiciFetch(intern))(`${adminUrl}/clients/billing`);
    expect([refused.status, refused.headers.get('content-type')]).toEqual([403, 'application/problem+json']);
  });

  it('audits which certificate acted: its subject and thumbprint, and the operator its entry names; never key material', async () => {
    const events = adminEvents();
    expect(events).toContainEqual({
      type: 'admin.request', clientId: 'ops-partner', method: 'POST', path: '/clients', status: 201,
      certificateSubject: 'CN=partner, O=Example Partner, C=DE', certificateThumbprint: pki.partner.thumbprint,
      requestId: expect.any(String), time: expect.any(String),
    });
    expect(events).toContainEqual({
      type: 'admin.request', clientId: 'ci-reader', method: 'DELETE', path: '/clients/billing', status: 403,
      certificateSubject: 'CN=stranger, O=Example Partner, C=DE', certificateThumbprint: pki.stranger.thumbprint,
      requestId: expect.any(String), time: expect.any(String),
    });
    // Refused, yet named: the certificate no entry lists, and one without any certificate.
    expect(events).toContainEqual({ type: 'admin.request', method: 'GET', path: '/clients', status: 403, certificateSubject: 'CN=intern, O=Example', certificateThumbprint: intern.thumbprint, requestId: expect.any(String), time: expect.any(String) });
    expect(events).toContainEqual({ type: 'admin.request', method: 'GET', path: '/clients', status: 401, requestId: expect.any(String), time: expect.any(String) });
    const log = server.logText();
    expect(log).not.toContain('PRIVATE KEY');
    expect(log).not.toContain('BEGIN CERTIFICATE');
    expect(log).not.toContain(pki.partner.derBase64.slice(0, 40));
  });
});

describe('svc --server against the admin API behind mutual TLS', () => {
  const env = (who: string) => ({ SVC_ADMIN_CERT: pki.file(`${who}.pem`), SVC_ADMIN_KEY: pki.file(`${who}.key`), SVC_ADMIN_CA: pki.file('server-ca.pem'), SVC_ADMIN_TOKEN: '' });

  it('lists and shows with the certificate, key and CA from SVC_ADMIN_CERT, SVC_ADMIN_KEY and SVC_ADMIN_CA, no token', async () => {
    const list = await runCliWith({ env: env('partner') }, '--server', adminUrl, 'clients', 'list');
    expect(list.stderr).toBe('');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^billing +- +client_credentials/m);
    const shown = await runCliWith({ env: env('stranger') }, '--server', adminUrl, 'clients', 'show', 'billing', '--json');
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ clientId: 'billing' });
  });

  it('a read-only certificate is refused a change in the API\'s words; an unlisted one likewise', async () => {
    const disabled = await runCliWith({ env: env('stranger') }, '--server', adminUrl, 'clients', 'disable', 'billing');
    expect([disabled.code, disabled.stderr]).toEqual([1, 'svc: the admin API refused (403): This changes the service: the client certificate\'s entry in admin.tls.clients needs scope "admin" (it has "admin.read").\n']);
    const intruder = await runCliWith({ env: env('intern') }, '--server', adminUrl, 'clients', 'list');
    expect(intruder.code).toBe(1);
    expect(intruder.stderr).toContain('svc: the admin API refused (403): The client certificate "CN=intern, O=Example"');
  });

  it('says what to set when the listener\'s CA is not trusted, or a file is missing', async () => {
    const untrusted = await runCliWith({ env: { ...env('partner'), SVC_ADMIN_CA: '' } }, '--server', adminUrl, 'clients', 'list');
    expect([untrusted.code, untrusted.stderr]).toEqual([1, `svc: cannot reach the admin API at ${adminUrl}: its certificate is not from a CA this command trusts (set SVC_ADMIN_CA to the CA that issued it).\n`]);
    const missing = await runCliWith({ env: { ...env('partner'), SVC_ADMIN_KEY: pki.file('nobody.key') } }, '--server', adminUrl, 'clients', 'list');
    expect([missing.code, missing.stderr]).toEqual([1, `svc: SVC_ADMIN_KEY: cannot read ${pki.file('nobody.key')} (no such file).\n`]);
  });
});

describe('docs/guides/admin-api.md, "Mutual TLS"', () => {
  const section = () => docSection('docs/guides/admin-api.md', '## Mutual TLS');

  it('declares admin.tls as this test does, and its example is a valid config', () => {
    const example = /```ts\n([\s\S]*?)```/.exec(section())![1]!;
    expect(example).toContain("{ subject: 'CN=alice, O=Example', operator: 'alice', scope: 'admin' }");
    // The block is an `admin` field as it sits in svc.config.ts: judged as a config of its own.
    const admin = new Function(`return {${example}}`)() as Record<string, unknown>;
    expect(validateUserConfig(admin)).toEqual([]);
  });

  it('runs verbatim: curl and svc --server with alice\'s certificate', async () => {
    const [block] = shellBlocks(section());
    const cwd = mkdtempSync(join(tmpdir(), 'svc-admin-mtls-guide-'));
    try {
      // The files the guide names: the CA of the listener's certificate, and an operator's certificate and key.
      copyFileSync(pki.file('server-ca.pem'), join(cwd, 'admin-ca.pem'));
      copyFileSync(pki.file('partner.pem'), join(cwd, 'alice.pem'));
      copyFileSync(pki.file('partner.key'), join(cwd, 'alice.key'));
      const out = (await runReadmeScript(block!.replaceAll('https://127.0.0.1:5001', adminUrl), { url: server.url, cwd, env: { SVC_ADMIN_TOKEN: '' } })).trim().split('\n');
      expect(out[0]).toBe('1');
      expect(out[1]).toMatch(/^client_id +name +grant types/);
      expect(out[2]).toMatch(/^billing +- +client_credentials/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
