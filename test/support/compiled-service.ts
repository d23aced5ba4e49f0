/**
 * The service's sources compiled to JavaScript once per test run, for the tests that spawn `svc`
 * as a child process. A clone's `bin/svc.mjs` loads the TypeScript through jiti, which costs a
 * process about 2.7 times the CPU of loading the same modules compiled (1.2 s against 0.45 s
 * here): jiti looks for every `./x.js` import under several names and extensions before it finds
 * `./x.ts`, and each miss is an error with a full stack. Some 170 spawns per `npm test` paid that.
 * `test/cli/cli.test.ts` and the tests that start `bin/svc.mjs` by name (two versions side by
 * side, multi-node, drop-in plugin, cluster workers) still run the binary; the package's own
 * build (`npm pack`) is tested by `test/e2e/package-install.test.ts`.
 *
 * The output is `dist/`, where `npm run build` puts it, so every path the service takes from its
 * own location (package.json, plugins/, bin/) is the same as from `src/`. Each file is
 * transpiled on its own (`verbatimModuleSyntax` makes that exact; `npm test` type-checks
 * first), and only when the sources changed since the last build, whose digest
 * `.cache/compiled-sources` keeps (outside dist/, which `npm pack` ships).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { repoRoot } from './server.js';

/** The script a test spawns as `svc`: bin/svc.mjs's compiled branch, over `dist/`. */
export const compiledSvc = join(repoRoot, 'test/support/svc-compiled.mjs');

const sourceDir = join(repoRoot, 'src');
const outDir = join(repoRoot, 'dist');
const stamp = join(repoRoot, '.cache/compiled-sources');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Writes `dist/` from `src/` unless it already holds these sources; says whether it wrote. */
export function compileService(): boolean {
  const files = sourceFiles(sourceDir).sort();
  const digest = createHash('sha256').update(ts.version);
  const sources = files.map((file) => {
    const text = readFileSync(file, 'utf8');
    digest.update(`${relative(sourceDir, file)}\0${text}\0`);
    return { file, text };
  });
  const sum = digest.digest('hex');
  let built: string | undefined;
  try {
    built = readFileSync(stamp, 'utf8');
  } catch {
    built = undefined;
  }
  if (built === sum) return false;
  // ES modules as Node runs them; the package is "type": "module", which a single-file
  // transpile cannot read, so the module kind is stated rather than NodeNext's guess.
  const compilerOptions: ts.CompilerOptions = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, verbatimModuleSyntax: true, sourceMap: false };
  for (const { file, text } of sources) {
    const out = join(outDir, relative(sourceDir, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    // Each file replaced whole (write, then rename), so a test run that spawns from dist/ while
    // another run compiles never reads half a file.
    const temporary = `${out}.${process.pid}.tmp`;
    writeFileSync(temporary, ts.transpileModule(text, { compilerOptions, fileName: file }).outputText);
    renameSync(temporary, out);
  }
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, sum);
  return true;
}
