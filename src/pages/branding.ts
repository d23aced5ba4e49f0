/**
 * What the pages render with, built once at start-up from `pages` in the config
 * (`src/config/branding.ts`): the product name, the logo and style sheet (files read into
 * memory and served under `/assets/` by a name that changes with their content, so they are
 * cached for good), the inline style sheet with the deployment's colours and its CSP hash, the
 * CSP sources the logo and style sheet need, the legal links, and the deployment's templates,
 * parsed. A file that cannot be read or a template that does not parse stops start-up naming
 * the field.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { BootError } from '../config/boot-error.js';
import type { PageAsset, PageTemplateName, ResolvedBranding } from '../config/branding.js';
import { css as builtInCss } from './styles.js';
import { compileTemplate, TemplateError, type PageTemplate } from './page-template.js';
import { requiredNames, templateNames } from './template-values.js';

export interface ServedAsset {
  readonly body: Buffer;
  readonly contentType: string;
}

export interface Branding {
  readonly productName: string | undefined;
  /** The `src` of the logo, absolute. */
  readonly logoSrc: string | undefined;
  /** The `href` of the deployment's style sheet, absolute. */
  readonly stylesheetHref: string | undefined;
  /** The inline style sheet: the built-in one, then the configured colours. */
  readonly css: string;
  /** `'sha256-...'`, the CSP source of `css`. */
  readonly cssHash: string;
  readonly privacyPolicyUrl: string | undefined;
  readonly termsUrl: string | undefined;
  readonly templates: Readonly<Partial<Record<PageTemplateName, PageTemplate>>>;
  /** By path under the issuer, e.g. `/assets/logo-1a2b3c4d5e6f.svg`. */
  readonly assets: ReadonlyMap<string, ServedAsset>;
}

/** The URL path under the issuer where the logo and style sheet files are served. */
export const assetsPath = '/assets';

const hashOf = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

export const defaultBranding: Branding = Object.freeze({
  productName: undefined,
  logoSrc: undefined,
  stylesheetHref: undefined,
  css: builtInCss,
  cssHash: hashOf(builtInCss),
  privacyPolicyUrl: undefined,
  termsUrl: undefined,
  templates: {},
  assets: new Map(),
});

const imageTypes: Readonly<Record<string, string>> = {
  '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif',
  '.webp': 'image/webp', '.avif': 'image/avif', '.ico': 'image/x-icon',
};
const styleTypes: Readonly<Record<string, string>> = { '.css': 'text/css; charset=utf-8' };
/** A logo or style sheet is small; a bigger file is most likely the wrong one. */
const maxAssetBytes = 1024 * 1024;

/** The colours as custom properties over the built-in ones (`styles.ts`); each was checked to be a plain CSS colour. */
function colorCss(colors: ResolvedBranding['colors']): string {
  const set: string[] = [];
  if (colors.primary) {
    set.push(`--accent:${colors.primary}`, `--focus:${colors.primary}`, `--accent-dark:color-mix(in srgb,${colors.primary} 82%,#000)`);
  }
  if (colors.background) set.push(`--bg:${colors.background}`);
  if (colors.text) set.push(`--text:${colors.text}`);
  return set.length === 0 ? '' : `\n:root{${set.join(';')}}`;
}

export function loadBranding(config: { readonly issuer: string; readonly pages: ResolvedBranding }): Branding {
  const { pages, issuer } = config;
  const problems: string[] = [];
  const assets = new Map<string, ServedAsset>();

  function served(field: string, asset: PageAsset | undefined, types: Readonly<Record<string, string>>): string | undefined {
    if (asset === undefined) return undefined;
    if ('url' in asset) return asset.url;
    const ext = extname(asset.file).toLowerCase();
    const contentType = types[ext];
    if (contentType === undefined) {
      problems.push(`pages.${field}: ${basename(asset.file)} is not one of ${Object.keys(types).join(', ')}`);
      return undefined;
    }
    let body: Buffer;
    try {
      body = readFileSync(asset.file);
    } catch (err) {
      problems.push(`pages.${field}: cannot read ${asset.file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      return undefined;
    }
    if (body.length > maxAssetBytes) {
      problems.push(`pages.${field}: ${asset.file} is ${body.length} bytes, more than ${maxAssetBytes}`);
      return undefined;
    }
    const path = `${assetsPath}/${field}-${createHash('sha256').update(body).digest('hex').slice(0, 12)}${ext}`;
    assets.set(path, { body, contentType });
    return issuer + path;
  }

  const logoSrc = served('logo', pages.logo, imageTypes);
  const stylesheetHref = served('stylesheet', pages.stylesheet, styleTypes);
  const templates: Partial<Record<PageTemplateName, PageTemplate>> = {};
  for (const [name, file] of Object.entries(pages.templates) as Array<[PageTemplateName, string]>) {
    try {
      const template = compileTemplate(readFileSync(file, 'utf8'), templateNames[name]);
      const missing = (requiredNames[name] ?? []).filter((n) => !template.uses.has(n));
      if (missing.length > 0) throw new TemplateError(`must use ${missing.map((n) => (n === 'lang' ? '{{lang}}' : `{{{${n}}}}`)).join(' and ')}`);
      templates[name] = template;
    } catch (err) {
      const why = err instanceof TemplateError ? err.message : `cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
      problems.push(`pages.templates.${name}: ${file}: ${why}`);
    }
  }
  if (problems.length > 0) throw new BootError('CONFIG_INVALID', problems);

  const css = builtInCss + colorCss(pages.colors);
  return Object.freeze({
    productName: pages.productName,
    logoSrc,
    stylesheetHref,
    css,
    cssHash: hashOf(css),
    privacyPolicyUrl: pages.privacyPolicyUrl,
    termsUrl: pages.termsUrl,
    templates,
    assets,
  });
}
