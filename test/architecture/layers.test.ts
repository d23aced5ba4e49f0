/**
 * The layout map of `src/` (issue 32, "Nothing runs upward, no cycles"): every import, type-only
 * ones included, goes from a folder to one in its own layer or a lower one, and no file reaches
 * itself again through its imports. Read with TypeScript's own `preProcessFile`, no server.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layers, lowest first; a folder may import its own layer and the ones before it.
 *
 * - `sdk` is the leaf plugin authors import: it knows nothing of the host.
 * - `net`: address parsing over `node:net`, knowing nothing of the service; the config checks
 *   `trustedProxies` with it.
 * - `config` is the floor of the host: the user's and the resolved config, its checks and boot
 *   errors. Whatever the config checks or carries (tracing settings, the password format, the
 *   redirect URI rule, TLS material) is declared here, not borrowed from the layer that uses it.
 * - Infrastructure that knows no OAuth: logging, the store, tracing, events, and `throttling`:
 *   the counters (back-offs and window limits, in this process or shared) and every throttle
 *   built on them, which answer with the SDK's OAuth errors; `mail`, the SMTP sender (issue 34's
 *   password reset links).
 * - The OAuth core: errors and parameters, grant running and token issuing, keys,
 *   `client-authentication` (parse, validate, throttle and observe: it finds clients through
 *   `clients` and answers with `oauth`'s errors; only the endpoints and the composition root
 *   import it), `sender-binding` (DPoP and certificate-bound tokens), `clients` (the directory,
 *   the admin side and dynamic registration), the plugin host that loads the plugins those run,
 *   and `users`: the users the service keeps (their records live in the store, like the clients'),
 *   with `second-factor`: their one-time codes and recovery codes (issue 35), sealed with `oauth`'s keys.
 * - `sessions`: the browser's sign-in sessions, which the pages and both browser flows read;
 *   `upstream`: sign-in at upstream identity providers (issue 34), served to the authorize flow
 *   through its external sign-in seam, and the account linking behind it.
 * - Page building blocks (HTML, cookies, CSRF, views, templates, page text) shared by the flows.
 * - The browser flows built on them: authorize, the device flow, and the account page (a
 *   user's own password).
 * - What the token service answers: every grant (`grants`, with the runner that picks one) and
 *   every endpoint.
 * - `http`, the only layer that touches Koa (its `pages/` are the pages' Koa adapters), and
 *   `admin`, the admin API on a listener of its own (issue 39), which uses `http`'s readers; `app`,
 *   the composition root; then the process entries: the CLI and the kit plugin authors test with.
 */
const layers: readonly (readonly string[])[] = [
  ['sdk'],
  ['net'],
  ['config'],
  ['log', 'store', 'tracing', 'events', 'throttling', 'mail'],
  ['oauth', 'client-authentication', 'sender-binding', 'clients', 'plugin-host', 'users', 'second-factor'],
  ['sessions', 'upstream'],
  ['pages'],
  ['authorize', 'device', 'account'],
  ['grants', 'endpoints'],
  ['http', 'admin'],
  ['app'],
  ['cli', 'testing'],
];

/**
 * Folders of one layer may import each other, as long as no file cycle forms; a loop between
 * folders is still a sign that a role is split across them. None is left: the last one ran
 * through client authentication, which found clients through `clients/client-directory.ts`
 * from inside `oauth` while `clients` checked entries against the plugins (`plugin-host`) and
 * `plugin-host` guarded a user store plugin with `oauth/client-subject-guard.ts`. In its own
 * folder (`client-authentication`, imported only by the endpoints and the composition root) it
 * closes no loop.
 */
const knownFolderCycles: readonly (readonly string[])[] = [];

/**
 * Imports known to run upward, each with the reason it is left. Written `from -> to` as file
 * paths under `src/`. Empty: keep it so.
 */
const allowedUpward: readonly string[] = [];

const src = fileURLToPath(new URL('../../src/', import.meta.url));
const plugins = fileURLToPath(new URL('../../plugins/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `./x.js` is `./x.ts` on disk (NodeNext); a folder means its `index.ts`. */
function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = resolve(dirname(from), specifier);
  for (const candidate of [target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts')]) {
    if (existsSync(candidate) && candidate.endsWith('.ts')) return candidate;
  }
  throw new Error(`${relative(src, from)}: cannot resolve "${specifier}"`);
}

/** Every file under `src/` (relative path) to the files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    // Type-only imports and re-exports are imports too; dynamic `import()` as well.
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles.flatMap(({ fileName }) => {
      const target = resolveImport(file, fileName);
      return target ? [relative(src, target)] : [];
    });
    graph.set(relative(src, file), [...new Set(targets)]);
  }
  return graph;
}

const folderOf = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '.');

function layerOf(folder: string): number {
  const index = layers.findIndex((layer) => layer.includes(folder));
  if (index < 0) throw new Error(`src/${folder}/ is in no layer: add it to the list in test/architecture/layers.test.ts`);
  return index;
}

/** The cycles of a graph (Tarjan's strongly connected components of more than one node, or a self-import). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || graph.get(file)?.includes(file)) cycles.push(component.sort());
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles;
}

describe('the layout map of src/', () => {
  const graph = importGraph();

  it('places every folder in a layer', () => {
    for (const file of graph.keys()) if (folderOf(file) !== '.') layerOf(folderOf(file));
  });

  it('has no import from a lower layer to a higher one', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      if (folderOf(file) === '.') continue; // src/main.ts and the like sit above every layer
      for (const target of targets) {
        if (folderOf(target) === '.') {
          upward.push(`${file} -> ${target}`);
        } else if (layerOf(folderOf(target)) > layerOf(folderOf(file))) {
          upward.push(`${file} -> ${target}`);
        }
      }
    }
    expect(upward.filter((edge) => !allowedUpward.includes(edge)).sort()).toEqual([]);
  });

  it('lists no allowed upward import that is gone', () => {
    const edges = new Set([...graph].flatMap(([file, targets]) => targets.map((target) => `${file} -> ${target}`)));
    expect(allowedUpward.filter((edge) => !edges.has(edge))).toEqual([]);
  });

  it('has no file cycle, type-only imports included', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('lets the first-party plugins in through the same door as anyone else: svc/sdk, their own folder, packages', () => {
    const strays: string[] = [];
    for (const file of sourceFiles(plugins)) {
      const folder = relative(plugins, file).split('/')[0]!;
      for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
        const inside = fileName.startsWith('.') && relative(plugins, resolve(dirname(file), fileName)).split('/')[0] === folder;
        const allowed = inside || fileName === 'svc/sdk' || (!fileName.startsWith('.') && !fileName.startsWith('svc/'));
        if (!allowed) strays.push(`plugins/${relative(plugins, file)} -> ${fileName}`);
      }
    }
    expect(strays).toEqual([]);
  });

  it('has no loop between folders but the known ones', () => {
    const folders = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      const to = targets.map(folderOf).filter((folder) => folder !== from);
      folders.set(from, [...new Set([...(folders.get(from) ?? []), ...to])]);
    }
    expect(cycles(folders)).toEqual(knownFolderCycles);
  });

  it('keeps the SDK a leaf', () => {
    const outside = [...graph].flatMap(([file, targets]) =>
      folderOf(file) === 'sdk' ? targets.filter((t) => folderOf(t) !== 'sdk').map((t) => `${file} -> ${t}`) : []);
    expect(outside).toEqual([]);
  });
});
