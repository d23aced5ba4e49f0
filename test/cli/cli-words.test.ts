/**
 * What a newcomer reads from `svc` (issue 39, "what a newcomer tripped over"): the version, a
 * suggestion for a mistyped command or option in the CLI's own words, and system errors said
 * in words. Run in-process through `main`, with standard output and error captured.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { describeFailure } from '../../src/cli/user-facing-error.js';

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
let out: string;
let err: string;

beforeEach(() => {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
});
afterEach(() => vi.restoreAllMocks());

describe('svc --version', () => {
  it.each(['--version', '-V', 'version'])('%s prints the package version and exits 0', async (flag) => {
    expect(await main([flag])).toBe(0);
    expect(out).toBe(`svc ${version}\n`);
    expect(err).toBe('');
  });
});

describe('a mistyped command or option', () => {
  it('suggests the closest command', async () => {
    expect(await main(['strat'])).toBe(1);
    expect(err.split('\n')[0]).toBe('svc: unknown command "strat" (did you mean "start"?)');
  });

  it("says an unknown option in the CLI's words, with the closest option, and no parser jargon", async () => {
    expect(await main(['start', '--prot', '5001'])).toBe(1);
    expect(err.split('\n')[0]).toBe('svc: start: unknown option --prot (did you mean "--port"?)');
    expect(err.split('\n')[0]).not.toContain("'");
    expect(err).toContain('usage: svc start');
  });

  it('says an option that needs a value needs one', async () => {
    expect(await main(['start', '--port'])).toBe(1);
    expect(err.split('\n')[0]).toBe('svc: start: --port needs a value');
  });

  it('says a flag takes no value', async () => {
    expect(await main(['start', '--help=yes'])).toBe(1);
    expect(err.split('\n')[0]).toBe('svc: start: --help takes no value');
  });
});

describe('system errors in words', () => {
  const system = (code: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, ...fields });

  it.each([
    [system('ECONNREFUSED', { address: '127.0.0.1', port: 5432 }), 'nothing answers at 127.0.0.1:5432: the connection was refused.'],
    [system('ENOTFOUND', { hostname: 'db.internal' }), 'the host name "db.internal" could not be found'],
    [system('ETIMEDOUT', { address: '10.0.0.9', port: 6379 }), 'no answer at 10.0.0.9:6379 in time'],
    [system('ECONNRESET'), 'the connection was closed by the other side'],
    [system('EEXIST', { path: '/srv/svc.config.ts' }), '/srv/svc.config.ts already exists; nothing was overwritten.'],
    [system('ENOTDIR', { path: '/srv/x/y' }), 'part of /srv/x/y is a file, not a folder.'],
  ])('%s', (error, words) => {
    const line = describeFailure(error, 'start');
    expect(line).toContain(words);
    expect(line).not.toMatch(/\bE[A-Z]{4,}\b/);
  });
});
