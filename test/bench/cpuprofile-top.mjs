#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per
// package or source folder, largest first.
//
//   node test/bench/cpuprofile-top.mjs <file.cpuprofile> [--top 30] [--from <s>] [--to <s>]
//
// --from/--to keep only samples in that window (seconds from the profile's start), e.g. to
// leave out start-up. Idle time is left out of the percentages. Last comes the inclusive time
// of the service's own functions (src/, plugins/), which shows what each step costs.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' }, from: { type: 'string' }, to: { type: 'string' } },
});
if (positionals.length !== 1) {
  process.stderr.write('usage: cpuprofile-top.mjs <file.cpuprofile> [--top 30] [--from <s>] [--to <s>]\n');
  process.exit(1);
}
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const top = Number(values.top);
const fromUs = values.from === undefined ? -Infinity : Number(values.from) * 1e6;
const toUs = values.to === undefined ? Infinity : Number(values.to) * 1e6;

const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
const selfUs = new Map();
let t = 0;
for (let i = 0; i < profile.samples.length; i++) {
  // timeDeltas[i] is the time before sample i; attribute it to that sample.
  t += profile.timeDeltas[i] ?? 0;
  if (t < fromUs || t > toUs) continue;
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}

const repo = /\/(src|plugins|test)\/(.*)$/;
function where(url) {
  if (!url) return '';
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (pkg) return `${pkg[1]}/${path.split(`node_modules/${pkg[1]}/`).at(-1)}`;
  const own = repo.exec(path);
  if (own) return `${own[1]}/${own[2]}`;
  return path;
}

function area(frame) {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native / V8 builtins)';
  if (url.startsWith('node:')) return 'node: internals';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  const own = repo.exec(url.replace(/^file:\/\//, ''));
  if (own) return `${own[1]}/${own[2].split('/').slice(0, own[1] === 'src' ? 1 : 1).join('/')}`;
  return url;
}

const byFunction = new Map();
const byArea = new Map();
let total = 0;
let idle = 0;
for (const [id, us] of selfUs) {
  const { callFrame } = nodes.get(id);
  if (callFrame.functionName === '(idle)') {
    idle += us;
    continue;
  }
  total += us;
  const name = callFrame.functionName || '(anonymous)';
  const key = `${name}  ${where(callFrame.url)}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  const a = area(callFrame);
  byArea.set(a, (byArea.get(a) ?? 0) + us);
}

// Inclusive time of the service's own functions (src/, plugins/): where a request's time goes.
const inclusive = new Map();
for (const [id, us] of selfUs) {
  if (nodes.get(id).callFrame.functionName === '(idle)') continue;
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const { callFrame } = nodes.get(at);
    if (!repo.test(callFrame.url ?? '')) continue;
    const key = `${callFrame.functionName || '(anonymous)'}  ${where(callFrame.url)}:${callFrame.lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}

const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
const msf = (us) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
const print = (title, map, n) => {
  process.stdout.write(`\n${title}\n`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    process.stdout.write(`${pct(us)} ${msf(us)}  ${key}\n`);
  }
};
process.stdout.write(
  `${positionals[0]}\nbusy ${(total / 1e6).toFixed(1)} s, idle ${(idle / 1e6).toFixed(1)} s, ${profile.samples.length} samples` +
    `${values.from || values.to ? ` (window ${values.from ?? 0}–${values.to ?? 'end'} s)` : ''}\n`,
);
print(`self time by function (top ${top})`, byFunction, top);
print('self time by package / source folder', byArea, 25);
print(`total (inclusive) time of the service's own functions (top ${top})`, inclusive, top);
