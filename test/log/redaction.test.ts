/**
 * What a log line carries once redacted (src/log/redact-fields.ts): a field with a secret name is
 * censored at any depth, in the logged fields, in an error and its cause, and in a child logger's
 * bindings; everything else is written as it was, and the caller's objects are left untouched.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, withRedacted } from '../../src/log/logger.js';
import { fieldRedactor } from '../../src/log/redact-fields.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const out = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) });
  return { lines, out };
}

describe('fieldRedactor', () => {
  const redact = fieldRedactor(['token', 'client_secret'], '[redacted]');

  it('returns the very object when no field is secret', () => {
    const fields = { event: { type: 'token.issued', clientId: 'm2m', scopes: ['api1.read'] }, reqId: 'r1' };
    expect(redact(fields)).toBe(fields);
  });

  it('censors secret names at the top, nested and inside arrays, and copies instead of changing', () => {
    const fields = Object.freeze({
      token: 'eyJtop',
      params: Object.freeze({ client_secret: 's3cret', scope: 'a' }),
      list: [{ deep: { token: 'eyJdeep' } }, 'plain'],
      absent: undefined,
    });
    expect(redact(fields)).toEqual({
      token: '[redacted]',
      params: { client_secret: '[redacted]', scope: 'a' },
      list: [{ deep: { token: '[redacted]' } }, 'plain'],
      absent: undefined,
    });
    expect(fields.params.client_secret).toBe('s3cret');
    expect((fields.list[0] as { deep: { token: string } }).deep.token).toBe('eyJdeep');
  });

  it('stops at a depth limit instead of following a cycle', () => {
    const loop: Record<string, unknown> = { name: 'a' };
    loop.self = loop;
    expect(redact({ loop })).toEqual({ loop });
  });
});

describe('a redacting logger', () => {
  it('writes secret fields as [redacted], and the rest of the line as logged', () => {
    const { lines, out } = capture();
    const logger = createLogger('info', out);
    logger.info({ clientId: 'm2m', password: 'hunter2', headers: { authorization: 'Basic abc', 'user-agent': 'x' }, req: { headers: { cookie: 'sid=1' } } }, 'seen');
    expect(lines[0]).toMatchObject({
      msg: 'seen',
      clientId: 'm2m',
      password: '[redacted]',
      headers: { authorization: '[redacted]', 'user-agent': 'x' },
      req: { headers: { cookie: '[redacted]' } },
    });
  });

  it('serializes an error as pino does (its cause\'s message appended), with its secret fields censored', () => {
    const { lines, out } = capture();
    const logger = createLogger('info', out);
    const cause = Object.assign(new Error('inner'), { refresh_token: 'rt-123' });
    const err = Object.assign(new TypeError('outer', { cause }), { code: 'E_X', token: 'eyJerr' });
    logger.error({ err }, 'failed');
    const written = lines[0]!.err as Record<string, unknown>;
    expect(written).toMatchObject({ type: 'TypeError', message: 'outer: inner', code: 'E_X', token: '[redacted]' });
    expect(written.stack).toEqual(expect.stringContaining('TypeError: outer'));
    expect(JSON.stringify(lines)).not.toMatch(/eyJerr|rt-123/);
    expect(err.token).toBe('eyJerr');
  });

  it('serializes an error logged alone, as pino does', () => {
    const { lines, out } = capture();
    createLogger('info', out).error(Object.assign(new Error('alone'), { token: 'eyJalone' }));
    expect(lines[0]).toMatchObject({ msg: 'alone', err: { type: 'Error', message: 'alone', token: '[redacted]' } });
  });

  it('censors a child\'s bindings, in grandchildren too, with the names the plugins declared', () => {
    const { lines, out } = capture();
    const root = createLogger('info', out);
    root.child({ token: 'eyJbound', component: 'a' }).info('one');
    const wide = withRedacted(root, ['client_assertion']);
    wide.child({ plugin: 'p' }).child({ client_assertion: 'eyJassertion' }).info({ client_assertion: 'eyJfield' }, 'two');
    root.child({ client_assertion: 'not declared at the root' }).info('three');
    expect(lines[0]).toMatchObject({ token: '[redacted]', component: 'a', msg: 'one' });
    expect(lines[1]).toMatchObject({ plugin: 'p', client_assertion: '[redacted]', msg: 'two' });
    expect(JSON.stringify(lines[1])).not.toMatch(/eyJassertion|eyJfield/);
    expect(lines[2]).toMatchObject({ client_assertion: 'not declared at the root' });
  });
});
