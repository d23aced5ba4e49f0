/**
 * The one HTML document every page is rendered into (sign-in, consent, logout, the device page,
 * the form_post response), and the small pieces their forms share. Works without JavaScript;
 * the only inline style sheet is `styles.ts` with the deployment's colours (`branding.ts`),
 * allowed by its hash; the deployment's own style sheet and logo by their URLs.
 */
import { html, SafeHtml } from './html.js';
import { defaultBranding, type Branding } from './branding.js';
import type { PageText } from './text/index.js';

export interface PageDocument {
  /** The words of the page, in the reader's language (`<html lang>`, the legal links). */
  readonly text: PageText;
  readonly title: string;
  /** The small line above the heading, naming the service's page; the product name replaces it when configured. */
  readonly brand: string;
  readonly body: SafeHtml;
  /** Extra `<head>` content, e.g. the form_post page's one script. */
  readonly head?: SafeHtml;
}

/** The document's values, for the built-in layout and a deployment's `layout` template (`template-values.ts`). */
export function documentValues(doc: PageDocument, branding: Branding) {
  const { text } = doc;
  const title = branding.productName ? `${doc.title} – ${branding.productName}` : doc.title;
  const head = html`<style>${new SafeHtml(branding.css)}</style>
${branding.stylesheetHref ? html`<link rel="stylesheet" href="${branding.stylesheetHref}">
` : ''}${doc.head ?? ''}`;
  // WCAG 1.1.1: beside the product name the logo is decoration; the name is its text.
  const brand = branding.productName
    ? html`<p class="brand product">${branding.logoSrc ? html`<img class="logo" src="${branding.logoSrc}" alt="">` : ''}<span class="product-name">${branding.productName}</span></p>`
    : html`<p class="brand">${doc.brand}</p>`;
  const links = [
    branding.privacyPolicyUrl ? html`<a href="${branding.privacyPolicyUrl}">${text.legal.privacyPolicy}</a>` : '',
    branding.termsUrl ? html`<a href="${branding.termsUrl}">${text.legal.terms}</a>` : '',
  ];
  const footer = branding.privacyPolicyUrl || branding.termsUrl ? html`
<footer class="legal">${links}</footer>` : html``;
  return {
    lang: text.lang, title, head, brand, body: doc.body, footer,
    productName: branding.productName, logoUrl: branding.logoSrc,
    privacyPolicyUrl: branding.privacyPolicyUrl, privacyPolicyLabel: text.legal.privacyPolicy,
    termsUrl: branding.termsUrl, termsLabel: text.legal.terms,
  };
}

export function renderDocument(doc: PageDocument, branding: Branding = defaultBranding): string {
  const values = documentValues(doc, branding);
  if (branding.templates.layout) return branding.templates.layout.render(values).value;
  return html`<!doctype html>
<html lang="${values.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${values.title}</title>
${values.head}</head>
<body>
<main>
${values.brand}
${values.body}${values.footer}
</main>
</body>
</html>
`.value;
}

export function hidden(name: string, value: string): SafeHtml {
  return html`<input type="hidden" name="${name}" value="${value}">`;
}

/** Why the last attempt did not go through, announced to screen readers. */
export function notice(message: string | undefined): SafeHtml {
  return html`${message ? html`<p class="notice" role="alert">${message}</p>` : ''}`;
}
