/**
 * The README's systemd unit ("As a systemd service"), taken verbatim and checked by
 * `systemd-analyze verify`: a misspelt key (which systemd only warns about and ignores) or a
 * missing executable fails here, not on an operator's host.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const guide = readFileSync(new URL('../../docs/guides/operations.md', import.meta.url), 'utf8');
const section = guide.slice(guide.indexOf('### As a systemd service'));
const unit = /```ini\n([\s\S]*?)```/.exec(section)?.[1];
const dir = mkdtempSync(join(tmpdir(), 'svc-systemd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the README's systemd unit", () => {
  it('is in the operations guide', () => {
    expect(unit).toContain('ExecStart=');
  });

  it('passes systemd-analyze verify without a warning', async () => {
    const file = join(dir, 'svc.service');
    writeFileSync(file, unit!);
    const run = await promisify(execFile)('systemd-analyze', ['verify', file]).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('listens where HOST and PORT say and stops on SIGTERM', () => {
    expect(unit).toMatch(/^Environment=.*\bHOST=0\.0\.0\.0\b/m);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
  });
});
