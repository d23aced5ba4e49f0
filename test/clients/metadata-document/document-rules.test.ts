/** Issue 36: the rules of client ID metadata documents over plain values. */
import { describe, expect, it } from 'vitest';
import { documentUrlOf } from '../../../src/clients/metadata-document/client-id-url.js';
import { DocumentProblem, readDocument } from '../../../src/clients/metadata-document/document-client.js';
import { keepSeconds } from '../../../src/clients/metadata-document/metadata-documents.js';

const none = new Set<string>();

describe('documentUrlOf (draft -03 §3)', () => {
  it.each([
    ['https://app.example.com/client.json'],
    ['https://app.example.com:8443/clients/agent?v=2'],
  ])('accepts %s', (id) => expect(documentUrlOf(id, none)).toBeInstanceOf(URL));

  it.each([
    ['no path', 'https://app.example.com'],
    ['a bare slash', 'https://app.example.com/'],
    ['a fragment', 'https://app.example.com/c.json#x'],
    ['userinfo', 'https://user:pw@app.example.com/c.json'],
    ['a dot segment', 'https://app.example.com/a/./c.json'],
    ['a double-dot segment', 'https://app.example.com/a/../c.json'],
    ['an encoded dot segment', 'https://app.example.com/a/%2e%2E/c.json'],
    ['http', 'http://app.example.com/c.json'],
    ['too long', `https://app.example.com/${'a'.repeat(300)}`],
  ])('refuses %s', (_what, id) => expect(documentUrlOf(id, none)).toBe('malformed'));

  it('restricts hosts when allowedHosts lists any', () => {
    const hosts = new Set(['app.example.com', 'other.example:8443']);
    expect(documentUrlOf('https://app.example.com/c.json', hosts)).toBeInstanceOf(URL);
    expect(documentUrlOf('https://other.example:8443/c.json', hosts)).toBeInstanceOf(URL);
    expect(documentUrlOf('https://other.example/c.json', hosts)).toBe('host-not-allowed');
    expect(documentUrlOf('https://evil.example/c.json', hosts)).toBe('host-not-allowed');
  });
});

describe('keepSeconds (HTTP caching within bounds)', () => {
  it.each([
    [undefined, 3600],
    ['max-age=600', 600],
    ['public, max-age=5', 60],
    ['max-age=999999', 3600],
    ['no-store', 60],
    ['no-cache', 60],
  ])('%s -> %i', (header, seconds) => expect(keepSeconds(header, 60, 3600)).toBe(seconds));
});

describe('readDocument', () => {
  const url = new URL('https://app.example.com/c.json');
  const id = url.href;
  const good = { client_id: id, client_name: 'Agent', redirect_uris: ['http://127.0.0.1/cb'] };
  const policy = { allowedScopes: ['openid', 'api1.read', 'offline_access'] };
  const refused = (document: unknown): string => {
    try {
      readDocument(document, url, id, policy);
    } catch (err) {
      if (err instanceof DocumentProblem) return err.message;
      throw err;
    }
    throw new Error('accepted');
  };

  it('makes a public PKCE client that is always asked for consent, named with its host', () => {
    const { definition } = readDocument({ ...good, scope: 'openid api1.write' }, url, id, policy);
    expect(definition).toMatchObject({
      clientName: 'Agent (app.example.com)', requireClientSecret: false, tokenEndpointAuthMethods: ['none'], requirePkce: true, requireConsent: true,
      allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], allowOfflineAccess: false, redirectUris: ['http://127.0.0.1/cb'],
      properties: { registered: 'true', metadataDocument: 'true' },
    });
  });

  it('gives refresh tokens only when the deployment allows offline_access', () => {
    const { definition } = readDocument({ ...good, grant_types: ['authorization_code', 'refresh_token'] }, url, id, policy);
    expect(definition).toMatchObject({ allowedGrantTypes: ['authorization_code', 'refresh_token'], allowOfflineAccess: true });
    const strict = readDocument({ ...good, grant_types: ['authorization_code', 'refresh_token'] }, url, id, { allowedScopes: ['openid'] });
    expect(strict.definition).toMatchObject({ allowedGrantTypes: ['authorization_code'], allowOfflineAccess: false });
  });

  it.each([
    ['not an object', [], /not a JSON object/],
    ['another client_id', { ...good, client_id: 'https://app.example.com/other.json' }, /client_id is not the URL/],
    ['a client_secret', { ...good, client_secret: 's' }, /client_secret/],
    ['client_secret_post', { ...good, token_endpoint_auth_method: 'client_secret_post' }, /token_endpoint_auth_method/],
    ['client_credentials', { ...good, grant_types: ['client_credentials'] }, /grant_types/],
    ['the implicit response type', { ...good, response_types: ['token'] }, /response_types/],
    ['no redirect URI', { ...good, redirect_uris: [] }, /no redirect_uris/],
    ['an http redirect URI off loopback', { ...good, redirect_uris: ['http://app.example.com/cb'] }, /redirect URI/],
    ['no allowed scope', { ...good, scope: 'admin' }, /scopes/],
    ['private_key_jwt without keys', { ...good, token_endpoint_auth_method: 'private_key_jwt' }, /exactly one of jwks and jwks_uri/],
    ['an http jwks_uri', { ...good, token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://app.example.com/jwks' }, /jwks_uri/],
  ])('refuses %s', (_what, document, message) => expect(refused(document)).toMatch(message));
});

describe('trustedCertificates', () => {
  it('a file that cannot be read stops start-up naming the field', async () => {
    const { createMetadataDocuments } = await import('../../../src/clients/metadata-document/metadata-documents.js');
    const { BootError } = await import('../../../src/config/boot-error.js');
    const settings = {
      enabled: true, allowedHosts: [], allowedScopes: ['openid'], allowedAddresses: [], trustedCertificates: 'missing-ca.pem',
      maxBytes: 5120, timeout: 5, minCacheSeconds: 60, maxCacheSeconds: 3600,
    };
    const make = () => createMetadataDocuments({
      config: { clientIdMetadataDocuments: settings, configDir: '/nonexistent' },
      checker: { client: () => ({ ok: false, problems: [] }), apiResource: () => ({ ok: false, problems: [] }) },
      clock: { now: () => 0 },
      logger: console as never,
    });
    expect(make).toThrow(BootError);
    expect(make).toThrow(/clientIdMetadataDocuments\.trustedCertificates: cannot use \/nonexistent\/missing-ca\.pem/);
  });
});
