/**
 * Start-up checks of `pages` (`branding.ts`) and of the scope descriptions the consent pages
 * show. Self-contained: each message names the field. Files (logo, style sheet, templates) are
 * read and templates parsed when the pages are built (`src/pages/branding.ts`), which stops
 * start-up the same way.
 */
import { didYouMean } from './closest-name.js';
import type { Problems } from './fields.js';
import { isAssetUrl, pageTemplateNames } from './branding.js';

const pagesFields = ['productName', 'logo', 'colors', 'stylesheet', 'privacyPolicyUrl', 'termsUrl', 'templates'] as const;
const colorFields = ['primary', 'background', 'text'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown): string =>
  typeof v === 'string' ? `"${v.length > 40 ? `${v.slice(0, 40)}...` : v}"` : v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;

/**
 * A CSS colour that cannot leave its declaration: hex, a colour function without nested
 * parentheses, quotes, semicolons or braces, or a keyword. It is written into the pages' one
 * inline style sheet, allowed by its hash.
 */
const hexColor = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const functionColor = /^(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\([0-9a-z.%,+\-/\s]*\)$/i;
const keywordColor = /^[a-z]{3,20}$/i;
export const isCssColor = (value: string): boolean => hexColor.test(value) || functionColor.test(value) || keywordColor.test(value);

/** BCP 47, as far as the page chooses by it (`src/pages/language.ts`). */
const languageTag = /^[a-z]{2,8}(?:-[a-z0-9]{1,8})*$/i;

/** The WCAG 2.2 contrast ratio of two `#rgb`/`#rrggbb` colours; undefined for any other form (not checked). */
export function contrastRatio(a: string, b: string): number | undefined {
  const la = luminance(a);
  const lb = luminance(b);
  if (la === undefined || lb === undefined) return undefined;
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

function luminance(color: string): number | undefined {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color);
  if (!m) return undefined;
  const hex = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!;
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** The card the text sits on, and the page around it, in the built-in style sheet (`src/pages/styles.ts`). */
const card = '#ffffff';
const defaultBackground = '#f2f4f7';

function checkHttpUrl(p: Problems, path: string, value: unknown, httpsIssuer: boolean): void {
  if (typeof value !== 'string' || value === '') return p.add(path, `expected an https:// URL, got ${describe(value)}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return p.add(path, `expected an https:// URL, got ${describe(value)}`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && !httpsIssuer)) return;
  p.add(path, `expected an https:// URL${httpsIssuer ? '' : ' (http:// while the issuer is http)'}, got ${describe(value)}`);
}

/** A URL the browser fetches, or a file (relative to the config file) the service serves. */
function checkAsset(p: Problems, path: string, value: unknown, httpsIssuer: boolean): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || value === '') return p.add(path, `expected an https:// URL or a file path, got ${describe(value)}`);
  if (isAssetUrl(value)) return checkHttpUrl(p, path, value, httpsIssuer);
  if (/^[a-z][a-z0-9+.-]*:/i.test(value) && !/^[a-z]:[\\/]/i.test(value)) p.add(path, `expected an https:// URL or a file path, got ${describe(value)}`);
}

export function checkBranding(p: Problems, raw: unknown, httpsIssuer: boolean): void {
  if (raw === undefined) return;
  if (!isObject(raw)) return p.add('pages', `expected an object { productName?, logo?, colors?, stylesheet?, privacyPolicyUrl?, termsUrl?, templates? }, got ${describe(raw)}`);
  for (const key of Object.keys(raw)) {
    if (!(pagesFields as readonly string[]).includes(key)) p.add(`pages.${key}`, `unknown field${didYouMean(key, pagesFields)} (known: ${pagesFields.join(', ')})`);
  }
  if (raw.productName !== undefined && (typeof raw.productName !== 'string' || raw.productName.trim() === '' || raw.productName.length > 100)) {
    p.add('pages.productName', `expected a name of 1 to 100 characters, got ${describe(raw.productName)}`);
  }
  checkAsset(p, 'pages.logo', raw.logo, httpsIssuer);
  // WCAG 1.1.1: the logo's text alternative is the product name.
  if (raw.logo !== undefined && raw.productName === undefined) p.add('pages.logo', 'needs pages.productName, the logo\'s text alternative');
  checkAsset(p, 'pages.stylesheet', raw.stylesheet, httpsIssuer);
  for (const field of ['privacyPolicyUrl', 'termsUrl'] as const) {
    if (raw[field] !== undefined) checkHttpUrl(p, `pages.${field}`, raw[field], httpsIssuer);
  }
  checkColors(p, raw.colors);
  checkTemplates(p, raw.templates);
}

function checkColors(p: Problems, colors: unknown): void {
  if (colors === undefined) return;
  if (!isObject(colors)) return p.add('pages.colors', `expected { primary?, background?, text? }, got ${describe(colors)}`);
  for (const [key, value] of Object.entries(colors)) {
    const at = `pages.colors.${key}`;
    if (!(colorFields as readonly string[]).includes(key)) p.add(at, `unknown field${didYouMean(key, colorFields)} (known: ${colorFields.join(', ')})`);
    else if (typeof value !== 'string' || !isCssColor(value)) p.add(at, `expected a CSS colour such as "#1a73e8", "rgb(26 115 232)" or "teal", got ${describe(value)}`);
  }
  const { primary, background, text } = colors as Record<string, string | undefined>;
  // WCAG 2.2 SC 1.4.3: text 4.5:1 on the white card; the primary colour is button fill under white text and link text on the card.
  const low = (at: string, a: string | undefined, b: string, min: number, what: string): void => {
    const ratio = a === undefined || !isCssColor(a) ? undefined : contrastRatio(a, b);
    if (ratio !== undefined && ratio < min) p.add(at, `${what}: contrast ${ratio.toFixed(2)}:1, WCAG 2.2 asks for ${min}:1 or more; choose a ${min === 3 ? 'different' : 'darker'} colour`);
  };
  low('pages.colors.text', text, card, 4.5, 'text on the white card');
  low('pages.colors.primary', primary, card, 4.5, 'buttons (white text) and links on the white card');
  // SC 1.4.11: the focus ring (the primary colour) around controls near the page's edge stands at 3:1 against the background.
  const bg = background !== undefined && isCssColor(background) ? background : defaultBackground;
  low('pages.colors.primary', primary, bg, 3, 'the focus ring against pages.colors.background');
}

function checkTemplates(p: Problems, templates: unknown): void {
  if (templates === undefined) return;
  if (!isObject(templates)) return p.add('pages.templates', `expected an object of template name to HTML file, got ${describe(templates)}`);
  for (const [name, file] of Object.entries(templates)) {
    const at = `pages.templates.${name}`;
    if (!(pageTemplateNames as readonly string[]).includes(name)) p.add(at, `unknown template${didYouMean(name, pageTemplateNames)} (known: ${pageTemplateNames.join(', ')})`);
    else if (typeof file !== 'string' || file === '') p.add(at, `expected the path of an HTML file, got ${describe(file)}`);
  }
}

/** A scope's `description`: a string, or one per language `{ en: '...', de: '...' }`. */
export function checkDescription(p: Problems, path: string, value: unknown): void {
  if (value === undefined) return;
  if (typeof value === 'string') {
    if (value.trim() === '') p.add(path, 'expected a non-empty description');
    return;
  }
  if (!isObject(value) || Object.keys(value).length === 0) {
    return p.add(path, `expected a string or descriptions by language such as { en: "...", de: "..." }, got ${describe(value)}`);
  }
  for (const [tag, text] of Object.entries(value)) {
    if (!languageTag.test(tag)) p.add(`${path}.${tag}`, 'expected a language tag such as "en" or "de-CH" (BCP 47)');
    else if (typeof text !== 'string' || text.trim() === '') p.add(`${path}.${tag}`, `expected a non-empty description, got ${describe(text)}`);
  }
}
