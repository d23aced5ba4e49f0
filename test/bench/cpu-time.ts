/**
 * A process's CPU time (user + system, all its threads) from /proc/<pid>/stat, so a round can
 * report what each request cost the server, whatever the load generator managed to send.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** `getconf CLK_TCK`, read once; 100 (the usual value) when getconf is missing. */
function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
      ticksPerSecond = Number.isFinite(value) && value > 0 ? value : 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Seconds of CPU the process has used so far; undefined when /proc cannot be read. */
export function cpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2, the command name, is in parentheses and may hold spaces or ')': count fields from
  // the last ')'. What follows starts at field 3, so utime (14) and stime (15) are at 11 and 12.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return (utime + stime) / clockTicksPerSecond();
}
