/**
 * The service's log output when it runs (issue 21): asynchronous and bounded. A consumer that
 * keeps up gets every line, the last ones included when the process exits; one that stalls
 * loses lines instead of stalling the service, and the loss is counted and said in the log.
 * Run in a child process, whose standard output is the destination under test.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const flood = fileURLToPath(new URL('../fixtures/log/flood.mjs', import.meta.url));

function run(count: number, readerPausedMs: number): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [flood, String(count)], { env: { ...process.env, NODE_ENV: 'production' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    // A stalled consumer: nothing is read from the pipe for a while.
    child.stdout.pause();
    setTimeout(() => {
      child.stdout.on('data', (chunk: string) => (stdout += chunk));
      child.stdout.resume();
    }, readerPausedMs);
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ stdout, stderr, code }));
  });
}

const lines = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('log output', () => {
  it('writes every line, the last one at exit included, when the consumer keeps up', async () => {
    const { stdout, stderr, code } = await run(2000, 0);
    expect(code).toBe(0);
    expect(stderr).toBe('dropped=0\n');
    const logged = lines(stdout);
    expect(logged.filter((l) => l.msg === 'line')).toHaveLength(2000);
    expect(logged.at(-1)).toMatchObject({ msg: 'last line', level: 30 });
  });

  it('drops lines past the bound when the consumer stalls, counts them and says so', async () => {
    // About 300 bytes a line: 100,000 lines are about 29 MiB, well past the 16 MiB bound.
    const { stdout, stderr, code } = await run(100_000, 1500);
    expect(code).toBe(0);
    const dropped = Number(/^dropped=(\d+)$/m.exec(stderr)?.[1]);
    expect(dropped).toBeGreaterThan(0);
    const logged = lines(stdout);
    const written = logged.filter((l) => l.msg === 'line').length;
    expect(written + dropped).toBe(100_000);
    const warning = logged.find((l) => l.level === 40);
    expect(warning).toMatchObject({ msg: 'log lines dropped: standard output did not keep up (see svc_log_lines_dropped_total)' });
    expect(warning!.dropped).toBe(dropped);
    expect(logged.at(-1)).toMatchObject({ msg: 'last line' });
  });
});
