/**
 * The pages' look, as the deployment writes it (`pages` in svc.config.ts) and as resolved: a
 * product name, a logo, three colours, its own style sheet, links to its privacy policy and
 * terms, and page templates it replaces one at a time. Kept in one place, apart from the rest
 * of the config: `validate-branding.ts` checks it, `resolveBranding` fills it in, and
 * `src/pages/branding.ts` reads the files and builds what the pages render with.
 */
import { isAbsolute, resolve as resolvePath } from 'node:path';

import type { LocalizedText } from '../sdk/model.js';

export type { LocalizedText };

/** The templates a deployment may replace, each an HTML file (`README.md`, "Branding the pages"). */
export const pageTemplateNames = ['layout', 'signIn', 'consent', 'logout', 'message', 'deviceCode', 'deviceDone'] as const;
export type PageTemplateName = (typeof pageTemplateNames)[number];

export interface PagesConfig {
  /** Shown above every page in place of the small "Sign in" line, and in the window title. @example productName: "Acme Cloud" */
  productName?: string;
  /**
   * An `https://` URL, or a file (relative to the config file) the service serves under the
   * issuer at `/assets/`. Needs `productName`, its text alternative. @example logo: "./branding/logo.svg"
   */
  logo?: string;
  /** CSS colours (`#1a73e8`, `rgb(26 115 232)`, `teal`). Hex colours are checked for WCAG contrast at start-up. */
  colors?: { primary?: string; background?: string; text?: string };
  /** The deployment's own style sheet, after the built-in one: an `https://` URL or a file served at `/assets/`. @example stylesheet: "./branding/acme.css" */
  stylesheet?: string;
  /** Linked in every page's footer. @example privacyPolicyUrl: "https://acme.example/privacy" */
  privacyPolicyUrl?: string;
  termsUrl?: string;
  /** HTML files replacing built-in templates, by name, relative to the config file. @example templates: { signIn: "./branding/sign-in.html" } */
  templates?: Partial<Record<PageTemplateName, string>>;
}

/** Where a logo or style sheet comes from. */
export type PageAsset = { readonly url: string } | { readonly file: string };

export interface ResolvedBranding {
  readonly productName: string | undefined;
  readonly logo: PageAsset | undefined;
  readonly colors: { readonly primary: string | undefined; readonly background: string | undefined; readonly text: string | undefined };
  readonly stylesheet: PageAsset | undefined;
  readonly privacyPolicyUrl: string | undefined;
  readonly termsUrl: string | undefined;
  /** Absolute paths. */
  readonly templates: Readonly<Partial<Record<PageTemplateName, string>>>;
}

/** An http(s) URL is fetched by the browser; anything else is a file this service serves. */
export const isAssetUrl = (value: string): boolean => /^https?:\/\//i.test(value);

/** A scope's resolved description: one string for plugins (`ApiScope.description`), and the per-language ones. */
export function resolveDescription(value: LocalizedText | undefined): { description: string | undefined; descriptions?: Readonly<Record<string, string>> } {
  if (value === undefined || typeof value === 'string') return { description: value };
  return { description: value.en ?? Object.values(value)[0], descriptions: { ...value } };
}

export function resolveBranding(user: PagesConfig | undefined, configDir: string): ResolvedBranding {
  const inDir = (p: string): string => (isAbsolute(p) ? p : resolvePath(configDir, p));
  const asset = (value: string | undefined): PageAsset | undefined =>
    value === undefined ? undefined : isAssetUrl(value) ? { url: value } : { file: inDir(value) };
  const templates: Partial<Record<PageTemplateName, string>> = {};
  for (const [name, file] of Object.entries(user?.templates ?? {})) templates[name as PageTemplateName] = inDir(file);
  return {
    productName: user?.productName,
    logo: asset(user?.logo),
    colors: { primary: user?.colors?.primary, background: user?.colors?.background, text: user?.colors?.text },
    stylesheet: asset(user?.stylesheet),
    privacyPolicyUrl: user?.privacyPolicyUrl,
    termsUrl: user?.termsUrl,
    templates,
  };
}
