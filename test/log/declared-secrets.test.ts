/**
 * The names the host and the authorization_code grant declare: `code_verifier` and
 * `id_token_hint` are redacted from every log line, while `code` stays readable — it is also the
 * field every error's code is logged under (an OAuth error, a store's ECONNREFUSED).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, withRedacted } from '../../src/log/logger.js';
import { buildParameterTable, hostParameters } from '../../src/oauth/form-params.js';
import { createAuthorizationCodeGrant } from '../../src/grants/authorization-code.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

describe('log redaction of the declared parameters', () => {
  it('redacts code_verifier and id_token_hint, and keeps the code of an error', () => {
    const lines: string[] = [];
    const out = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const clock = { now: () => 0 };
    const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };
    const grant = createAuthorizationCodeGrant({ store: createMemoryStore(clock), clock, logger: silent });
    const table = buildParameterTable([...hostParameters, ...(grant.parameters ?? [])]);
    const logger = withRedacted(createLogger('info', out), table.secrets);
    logger.warn({ code: 'invalid_client', err: { code: 'ECONNREFUSED' }, code_verifier: 'verifier-123', params: { id_token_hint: 'eyJhint' } }, 'x');
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ code: 'invalid_client', err: { code: 'ECONNREFUSED' }, code_verifier: '[redacted]', params: { id_token_hint: '[redacted]' } });
  });
});
