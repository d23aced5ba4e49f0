/**
 * Issue 14, point 8: an `error_description` never echoes what the caller sent, and always stays
 * within RFC 6749 §5.2's character set (%x20-21 / %x23-5B / %x5D-7E: no `"`, no `\`, nothing
 * outside printable ASCII). The log still says what was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { demoConfig } from '../support/demo-config.js';

const rfc6749DescriptionChars = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

let server: TestServer;
beforeAll(async () => {
  server = await startServer(demoConfig);
});
afterAll(() => server.close());

const asM2m = { authorization: basic('m2m', 'm2m-secret') };
const token = (body: string) => postForm(`${server.url}/connect/token`, body, asM2m);

function expectSafe(reply: { status: number; body: Record<string, unknown> }, status: number, body: Record<string, string>): void {
  expect({ status: reply.status, body: reply.body }).toEqual({ status, body });
  expect(reply.body.error_description).toMatch(rfc6749DescriptionChars);
}

describe('error descriptions never echo the request (RFC 6749 §5.2)', () => {
  it('a scope the client is not allowed is not quoted back', async () => {
    expectSafe(await token('grant_type=client_credentials&scope=backend.read'), 400, {
      error: 'invalid_scope', error_description: 'The client is not allowed a requested scope.',
    });
    expect(server.logs.some((l) => typeof l.detail === 'string' && l.detail.includes('backend.read'))).toBe(true);
  });

  it('a repeated parameter whose name holds a quote and a backslash is not named', async () => {
    expectSafe(await token(`grant_type=client_credentials&${encodeURIComponent('x"\\y')}=1&${encodeURIComponent('x"\\y')}=2`), 400, {
      error: 'invalid_request', error_description: 'A parameter is included more than once.',
    });
    expect(server.logs.some((l) => typeof l.detail === 'string' && l.detail.includes('x\\"\\\\y'))).toBe(true);
  });

  it('a repeated parameter of the protocol is named: the name is ours, not the caller\'s', async () => {
    expectSafe(await token('grant_type=client_credentials&scope=api1.read&scope=api1.read'), 400, {
      error: 'invalid_request', error_description: 'Parameter scope is included more than once.',
    });
  });

  it('an over-long parameter with an unknown name is not named', async () => {
    expectSafe(await token(`grant_type=client_credentials&${encodeURIComponent('"é\\')}=${'x'.repeat(2049)}`), 400, {
      error: 'invalid_request', error_description: 'A parameter is too long (at most 2048 characters).',
    });
  });
});
