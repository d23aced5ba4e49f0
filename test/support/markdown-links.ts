/**
 * The links of the repository's Markdown documents, and the anchors GitHub gives their headings,
 * for the link check (`test/docs/links.test.ts`): a reader who follows a link lands on a file
 * and a heading that exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** A document's lines outside fenced code blocks (a `#` there is a shell comment, not a heading). */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence === undefined) lines.push(line);
  }
  return lines;
}

/**
 * The anchor GitHub makes of a heading (github-slugger's rules): its text as rendered (no code
 * marks, a link's label), lower-cased, punctuation removed, each space a `-`; a repeated heading
 * gets `-1`, `-2`.
 */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const rendered = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '').replace(/<[^>]+>/g, '');
    const slug = rendered.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The link targets of a document's prose (not of its code blocks or inline code), in order. */
export function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, '``');
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1]!);
  }
  return targets;
}

/** Markdown files under `dir` (relative to `root`), node_modules and dot folders left out. */
export function markdownFiles(root: string, dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path)) {
      if (entry === 'node_modules' || entry.startsWith('.')) continue;
      const full = join(path, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith('.md')) found.push(relative(root, full));
    }
  };
  walk(join(root, dir));
  return found.sort();
}

/** What is wrong with each internal link of `file`: a missing file or a missing heading. */
export function brokenLinks(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const problems: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = path === '' ? join(root, file) : join(root, dirname(file), decodeURIComponent(path));
    if (!existsSync(resolved)) {
      problems.push(`${file}: ${target}: no file ${relative(root, resolved)}`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (!resolved.endsWith('.md')) continue; // an anchor into a non-Markdown file is the host's business
    if (!headingAnchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))) {
      problems.push(`${file}: ${target}: ${relative(root, resolved)} has no heading #${anchor}`);
    }
  }
  return problems;
}
