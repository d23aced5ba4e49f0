/**
 * A form body labelled with a Content-Encoding it does not have (gzip, deflate or br that does
 * not decode) is a malformed body: the client's mistake, answered as a JSON invalid_request at
 * every form endpoint, never a 500 server_error.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, startServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    apiScopes: [{ name: 'api1.read' }],
    apiResources: [{ name: 'api1', scopes: ['api1.read'], secrets: [{ value: hashSecret('api1-secret') }] }],
    clients: [
      {
        clientId: 'm2m',
        clientSecrets: [{ value: hashSecret('m2m-secret') }],
        allowedGrantTypes: ['client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'],
        allowedScopes: ['api1.read'],
      },
    ],
  });
});

afterAll(async () => {
  await server?.close();
});

/** A raw POST, so the Content-Encoding header goes out exactly as given. */
function post(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; contentType: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const endpoints: Array<[string, string, string]> = [
  ['/connect/token', 'grant_type=client_credentials', basic('m2m', 'm2m-secret')],
  ['/connect/introspect', 'token=abc', basic('api1', 'api1-secret')],
  ['/connect/revocation', 'token=abc', basic('m2m', 'm2m-secret')],
  ['/connect/deviceauthorization', 'scope=api1.read', basic('m2m', 'm2m-secret')],
];

describe.each(['gzip', 'deflate', 'br'])('a plain form body labelled Content-Encoding: %s', (encoding) => {
  it.each(endpoints)('is answered at %s with a JSON invalid_request, not a 500', async (path, body, authorization) => {
    const reply = await post(path, body, {
      'content-type': 'application/x-www-form-urlencoded',
      'content-encoding': encoding,
      authorization,
    });
    expect(reply.status, reply.text).not.toBe(500);
    expect([400, 415], reply.text).toContain(reply.status);
    expect(reply.contentType).toMatch(/^application\/json/);
    expect((JSON.parse(reply.text) as { error: string }).error).toBe('invalid_request');
  });
});
