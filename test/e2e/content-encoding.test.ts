/**
 * A form body labelled with a Content-Encoding it does not have (gzip, deflate or br that does
 * not decode) is a malformed body: the client's mistake, answered as a JSON invalid_request at
 * every form endpoint, never a 500 server_error.
 */
import { request as httpRequest } from 'node:http';
import { createGunzip, createInflate, deflateSync, gzipSync } from 'node:zlib';
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
  return postBytes(path, Buffer.from(body), headers);
}

function postBytes(path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; contentType: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method: 'POST', headers: { ...headers, 'content-length': body.length } }, (res) => {
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

/**
 * A compressed body that inflates past the 64 KiB limit and is corrupt a little further on. The
 * reader gives up at the limit (413) while the decompressor still holds the rest; when it reaches
 * the corrupt bytes, that error must find a listener: it stopped the process once (the fuzzer, a
 * gzip bomb with one byte inserted). The cases are found here rather than hard-coded: each inserts
 * two bytes at an offset where streaming inflation yields more than 64 KiB before it fails.
 */
const limit = 64 * 1024;

async function bytesBeforeError(encoding: string, body: Buffer): Promise<number | undefined> {
  return new Promise((resolve) => {
    const decoder = encoding === 'gzip' ? createGunzip() : createInflate();
    let inflated = 0;
    decoder.on('data', (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > 4 * limit) (decoder.destroy(), resolve(undefined));
    });
    decoder.on('error', () => resolve(inflated));
    decoder.on('end', () => resolve(undefined));
    decoder.end(body);
  });
}

async function overflowingThenCorrupt(encoding: string): Promise<Buffer[]> {
  const zeros = Buffer.alloc(8 * 1024 * 1024);
  const packed = encoding === 'gzip' ? gzipSync(zeros) : deflateSync(zeros);
  const cases: Buffer[] = [];
  for (let at = 0; at < 1_000 && cases.length < 8; at++) {
    const body = Buffer.concat([packed.subarray(0, at), Buffer.from('%z'), packed.subarray(at)]);
    const inflated = await bytesBeforeError(encoding, body);
    if (inflated !== undefined && inflated > limit) cases.push(body);
  }
  return cases;
}

describe.each(['gzip', 'deflate'])('a %s body that overflows the limit and is corrupt after it', (encoding) => {
  it.each(endpoints)('is answered at %s with 413, and the service keeps answering', async (path, _body, authorization) => {
    const cases = await overflowingThenCorrupt(encoding);
    expect(cases.length).toBeGreaterThan(0);
    for (const body of cases) {
      const reply = await postBytes(path, body, {
        'content-type': 'application/x-www-form-urlencoded',
        'content-encoding': encoding,
        authorization,
      });
      expect(reply.status, reply.text).toBe(413);
      expect((JSON.parse(reply.text) as { error: string }).error).toBe('invalid_request');
    }
    // The decoder meets the corrupt bytes after the answer; give it the turns it needs.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = await post('/connect/token', 'grant_type=client_credentials', { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('m2m', 'm2m-secret') });
    expect(after.status, after.text).toBe(200);
  });
});
