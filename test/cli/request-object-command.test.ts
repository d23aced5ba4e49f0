/**
 * `svc request-object`: the signed request object a guide reader makes for curl (the guide's
 * "Try it" runs it against the service, `test/e2e/guide-signed-requests.test.ts`). Here: what it
 * signs, and the mistakes in its `name=value` list it names instead of signing.
 */
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { parametersOf } from '../../src/cli/request-object-command.js';
import { repoRoot } from '../support/server.js';
import { runCli as svc } from '../support/svc-process.js';

describe('svc request-object', () => {
  it('signs the parameters with the client\'s key: typed, iss and client_id the client, aud, five minutes, a jti', async () => {
    const run = await svc('request-object', '--client', 'bank-app', '--key', join(repoRoot, 'docs/demo-keys/pkjwt-demo.pem'), '--aud', 'https://issuer.example',
      'response_type=code', 'scope=openid profile', 'max_age=60');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const jwt = run.stdout.trim();
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'ES256', typ: 'oauth-authz-req+jwt' });
    const claims = decodeJwt(jwt);
    expect(claims).toEqual({
      response_type: 'code', scope: 'openid profile', max_age: '60', client_id: 'bank-app', iss: 'bank-app', aud: 'https://issuer.example',
      jti: expect.stringMatching(/^[\w-]{22}$/), iat: expect.any(Number), nbf: claims.iat, exp: (claims.iat as number) + 300,
    });
  });

  it.each([
    [['scope'], 'expected name=value, got "scope" (e.g. response_type=code)'],
    [['=code'], 'expected name=value, got "=code" (e.g. response_type=code)'],
    [['aud=https://other.example'], 'aud is set by svc request-object itself; leave it out'],
    [['request_uri=https://x.example'], 'request_uri is set by svc request-object itself; leave it out'],
    [['scope=a', 'scope=b'], 'scope is given twice'],
  ])('refuses %j', (items, message) => {
    expect(() => parametersOf(items)).toThrow(message);
  });
});
