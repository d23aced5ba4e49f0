/**
 * `admin.tls` (issue 39): its shape is checked with the rest of the config (an entry names its
 * certificate by subject or by thumbprint, one of them; a thumbprint is hex or base64url of 32
 * bytes); the files it names are read at start-up, and one that cannot be read or does not hold
 * what its field promises stops start-up naming the field. Paths resolve against the config's folder.
 */
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkConfig } from '../../src/config/load.js';
import { validateUserConfig } from '../../src/config/validate.js';
import { normalThumbprint } from '../../src/config/certificate-thumbprint.js';
import { makePki, partnerSubject, type Pki } from '../support/certificates.js';
import { bootErrorFor } from '../support/boot-error.js';

const tls = { certificate: './tls/admin.pem', key: './tls/admin.key', clientCa: './tls/operators-ca.pem' };

describe('validateUserConfig: admin.tls', () => {
  it('accepts certificates named by subject and by thumbprint, hex or base64url', () => {
    expect(validateUserConfig({
      admin: {
        port: 5001,
        tls: {
          ...tls,
          clients: [
            { subject: 'CN=ops-alice, O=Example', operator: 'ops-alice', scope: 'admin' },
            { thumbprint: 'AB:'.repeat(31) + 'AB', operator: 'ci', scope: 'admin.read' },
            { thumbprint: 'q'.repeat(43), operator: 'ci-2', scope: 'admin.read' },
          ],
        },
      },
    })).toEqual([]);
  });

  it('names each bad field', () => {
    expect(validateUserConfig({
      admin: {
        port: 5001,
        tls: {
          certificate: '', clientCa: 7,
          clients: [
            { subject: 'CN=a', thumbprint: 'q'.repeat(43), operator: 'a', scope: 'admin' },
            { operator: 'b', scope: 'admin' },
            { thumbprint: 'AB:CD', operator: 'c', scope: 'write' },
            { subject: 'not a name', operator: '', scope: 'admin.read' },
          ],
        },
      },
    })).toEqual([
      'admin.tls.certificate: expected a non-empty string, got ""',
      'admin.tls.key: required, expected a non-empty string',
      'admin.tls.clientCa: expected a non-empty string, got number 7',
      'admin.tls.clients[0]: name the certificate by subject or by thumbprint (one of them)',
      'admin.tls.clients[1]: name the certificate by subject or by thumbprint (one of them)',
      'admin.tls.clients[2].thumbprint: expected a SHA-256 thumbprint (43 base64url characters, or 64 hex digits with or without colons), got "AB:CD"',
      'admin.tls.clients[2].scope: unknown value "write" (allowed: admin, admin.read)',
      'admin.tls.clients[3].subject: expected a distinguished name such as "CN=ops-alice, O=Example", got "not a name"',
      'admin.tls.clients[3].operator: expected a non-empty string, got ""',
    ]);
    expect(validateUserConfig({ admin: { port: 5001, tls: { ...tls, clients: [] } } })).toEqual([
      'admin.tls.clients: required, expected at least one { subject | thumbprint, operator, scope }',
    ]);
  });

  it('resolves the paths against the config folder', () => {
    const config = checkConfig({ admin: { port: 5001, tls: { ...tls, key: '/etc/svc/admin.key', clients: [{ subject: 'CN=a', operator: 'a', scope: 'admin' }] } } }, '/srv/svc');
    expect(config.admin?.tls).toMatchObject({ certificate: '/srv/svc/tls/admin.pem', key: '/etc/svc/admin.key', clientCa: '/srv/svc/tls/operators-ca.pem' });
  });

  it('reads a thumbprint the way openssl prints it as the base64url of the same bytes', () => {
    const hex = '0A'.repeat(32);
    expect(normalThumbprint(hex.match(/../g)!.join(':'))).toBe(Buffer.from(hex, 'hex').toString('base64url'));
    expect(normalThumbprint(hex.toLowerCase())).toBe(Buffer.from(hex, 'hex').toString('base64url'));
    expect(normalThumbprint('too short')).toBeUndefined();
  });
});

describe('start-up reads the admin TLS files', () => {
  let pki: Pki;
  beforeAll(async () => {
    pki = await makePki();
    writeFileSync(pki.file('garbage.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  });
  const base = (over: Record<string, unknown>) => ({
    store: 'memory', pluginDirs: [],
    admin: {
      port: 0,
      tls: { certificate: pki.file('server.pem'), key: pki.file('server.key'), clientCa: pki.file('client-ca.pem'), clients: [{ subject: partnerSubject, operator: 'p', scope: 'admin' }], ...over },
    },
  });

  it('stops for a file that cannot be read, naming the field', async () => {
    const err = await bootErrorFor(base({ clientCa: './missing-ca.pem' }), pki.dir);
    expect([err.code, err.message]).toEqual(['CONFIG_INVALID', `admin.tls.clientCa: cannot read ${pki.file('missing-ca.pem')} (ENOENT)`]);
  });

  it('stops for a certificate file that holds no certificate, or one that does not parse', async () => {
    expect((await bootErrorFor(base({ certificate: pki.file('server.key') }), pki.dir)).message)
      .toBe(`admin.tls.certificate: ${pki.file('server.key')} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    expect((await bootErrorFor(base({ clientCa: pki.file('garbage.pem') }), pki.dir)).message).toMatch(/^admin\.tls\.clientCa: certificate #1 in .*garbage\.pem does not parse/);
  });

  it('stops for a key that is no key, or not the certificate\'s', async () => {
    expect((await bootErrorFor(base({ key: pki.file('server.pem') }), pki.dir)).message).toMatch(/^admin\.tls\.key: .*server\.pem is not an unencrypted PEM private key/);
    expect((await bootErrorFor(base({ key: pki.file('partner.key') }), pki.dir)).message)
      .toBe(`admin.tls.key: ${pki.file('partner.key')} is not the private key of the first certificate in admin.tls.certificate (${pki.file('server.pem')})`);
  });

  it('stops for a client CA file holding a certificate that is not a CA', async () => {
    const err = await bootErrorFor(base({ clientCa: pki.file('partner.pem') }), pki.dir);
    expect(err.message).toBe('admin.tls.clientCa: certificate #1 (CN=partner, O=Example Partner, C=DE) is not a CA certificate (basicConstraints CA:TRUE)');
  });
});
