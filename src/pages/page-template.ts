/**
 * The deployment's page templates (`pages.templates`): HTML files with a small placeholder
 * syntax, parsed once at start-up.
 *
 * - `{{name}}` a value, HTML-escaped;
 * - `{{{name}}}` a piece of HTML the page built itself (hidden fields, a sentence with the
 *   client's name in bold); any other value is escaped here too, so no value a user or client
 *   chose can reach the page unescaped;
 * - `{{#name}}...{{/name}}` shown when the value is set (not empty, not false), once per item
 *   for a list, whose items' fields are then in reach; `{{^name}}...{{/name}}` when it is not.
 *
 * A name the page does not offer, an unclosed section or a stray `{{` stops start-up
 * (`TemplateError`), naming the line.
 */
import { didYouMean } from '../config/closest-name.js';
import { escapeHtml, SafeHtml } from './html.js';

export type TemplateValue = string | number | boolean | SafeHtml | undefined | readonly TemplateItem[];
export type TemplateItem = Readonly<Record<string, string | number | boolean | SafeHtml | undefined>>;
export type TemplateValues = Readonly<Record<string, TemplateValue>>;

/** The names a template may use: plain ones, and lists with the names of their items' fields. */
export interface TemplateNames {
  readonly values: readonly string[];
  readonly lists?: Readonly<Record<string, readonly string[]>>;
}

export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

type Node =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'value'; readonly name: string; readonly raw: boolean }
  | { readonly kind: 'section'; readonly name: string; readonly inverted: boolean; readonly children: Node[] };

export interface PageTemplate {
  render(values: TemplateValues): SafeHtml;
  /** Every name the template uses. */
  readonly uses: ReadonlySet<string>;
}

const tag = /\{\{\{\s*([A-Za-z][A-Za-z0-9]*)\s*\}\}\}|\{\{\s*([#^/]?)\s*([A-Za-z][A-Za-z0-9]*)\s*\}\}/g;

export function compileTemplate(source: string, names: TemplateNames): PageTemplate {
  const lineOf = (index: number): number => source.slice(0, index).split('\n').length;
  const root: Node[] = [];
  const open: Array<{ name: string; children: Node[]; line: number; list: readonly string[] | undefined }> = [];
  let children = root;
  let last = 0;

  const uses = new Set<string>();
  const known = (name: string, line: number): void => {
    uses.add(name);
    const inList = open.flatMap((s) => s.list ?? []);
    const all = [...names.values, ...Object.keys(names.lists ?? {}), ...inList];
    if (!all.includes(name)) throw new TemplateError(`line ${line}: unknown placeholder "${name}"${didYouMean(name, all)} (this page offers: ${all.join(', ')})`);
  };
  const text = (upTo: number): void => {
    const chunk = source.slice(last, upTo);
    const stray = chunk.indexOf('{{');
    if (stray !== -1) throw new TemplateError(`line ${lineOf(last + stray)}: "{{" that is no placeholder ({{name}}, {{{name}}}, {{#name}}, {{^name}}, {{/name}})`);
    if (chunk) children.push({ kind: 'text', text: chunk });
  };

  for (const m of source.matchAll(tag)) {
    text(m.index);
    last = m.index + m[0].length;
    const line = lineOf(m.index);
    if (m[1] !== undefined) {
      known(m[1], line);
      children.push({ kind: 'value', name: m[1], raw: true });
      continue;
    }
    const [, , sigil, name] = m as unknown as [string, undefined, string, string];
    known(name, line);
    if (sigil === '') {
      children.push({ kind: 'value', name, raw: false });
    } else if (sigil === '#' || sigil === '^') {
      const section: Node = { kind: 'section', name, inverted: sigil === '^', children: [] };
      children.push(section);
      open.push({ name, children: section.children, line, list: sigil === '#' ? names.lists?.[name] : undefined });
      children = section.children;
    } else {
      const top = open.pop();
      if (top?.name !== name) throw new TemplateError(`line ${line}: {{/${name}}} closes ${top ? `{{#${top.name}}} of line ${top.line}` : 'no section'}`);
      children = open.at(-1)?.children ?? root;
    }
  }
  text(source.length);
  if (open.length > 0) throw new TemplateError(`line ${open.at(-1)!.line}: {{#${open.at(-1)!.name}}} is never closed`);

  return { render: (values) => new SafeHtml(renderNodes(root, [values])), uses };
}

function lookUp(name: string, scopes: ReadonlyArray<Readonly<Record<string, TemplateValue>>>): TemplateValue {
  for (let i = scopes.length - 1; i >= 0; i--) if (Object.hasOwn(scopes[i]!, name)) return scopes[i]![name];
  return undefined;
}

const isSet = (value: TemplateValue): boolean =>
  !(value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0));

function renderNodes(nodes: readonly Node[], scopes: ReadonlyArray<Readonly<Record<string, TemplateValue>>>): string {
  let out = '';
  for (const node of nodes) {
    if (node.kind === 'text') out += node.text;
    else if (node.kind === 'value') {
      const value = lookUp(node.name, scopes);
      // Only HTML the page built itself passes raw; everything else is text, even in {{{ }}}.
      if (value instanceof SafeHtml) out += value.value;
      else if (value !== undefined && value !== false && !Array.isArray(value)) out += escapeHtml(String(value));
    } else {
      const value = lookUp(node.name, scopes);
      if (node.inverted) {
        if (!isSet(value)) out += renderNodes(node.children, scopes);
      } else if (Array.isArray(value)) {
        for (const item of value as readonly TemplateItem[]) out += renderNodes(node.children, [...scopes, item]);
      } else if (isSet(value)) out += renderNodes(node.children, scopes);
    }
  }
  return out;
}
