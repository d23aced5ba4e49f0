/**
 * Interop in a second language: Python's authlib (Debian's python3-authlib) runs the
 * authorization code flow with PKCE, verifies the ID token (iss, aud, nonce) against the JWKS
 * and calls UserInfo (test/e2e/authlib/sign_in.py). Skipped with a message where authlib is
 * missing; under CI=true it must run.
 */
import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { alice, signInConfig } from '../support/sign-in.js';

const python = '/usr/bin/python3';
const script = fileURLToPath(new URL('./authlib/sign_in.py', import.meta.url));

function authlibMissing(): boolean {
  try {
    execFileSync(python, ['-c', 'import authlib, requests'], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
}
const skip = authlibMissing() && process.env.CI !== 'true';
if (skip) console.warn('Skipping the authlib interop test: Debian\'s python3-authlib is missing (apt-get install -y python3-authlib).');

describe.skipIf(skip)('authlib (Python)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(await signInConfig());
  });
  afterAll(() => server?.close());

  it('authorization code with PKCE, ID token verified, UserInfo', async () => {
    const { stdout } = await promisify(execFile)(python, [script], { env: { ...process.env, SVC_URL: server.url }, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({
      iss_in_callback: true,
      sub: alice.subjectId,
      name: 'Alice Smith',
      userinfo: { sub: alice.subjectId, acr: 'pwd', amr: ['pwd'], name: 'Alice Smith', email: 'alice@example.com' },
      token_type: 'Bearer',
    });
  });
});
