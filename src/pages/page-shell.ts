/**
 * The one HTML document every page is rendered into (sign-in, consent, logout, the device page,
 * the form_post response), and the small pieces their forms share. Works without JavaScript;
 * the only style sheet is `styles.ts`, inline and allowed by its hash.
 */
import { html, SafeHtml } from './html.js';
import { css } from './styles.js';

export interface PageDocument {
  /** BCP 47 tag of the text, for `<html lang>`. */
  readonly lang: string;
  readonly title: string;
  /** The small line above the heading, naming the service's page. */
  readonly brand: string;
  readonly body: SafeHtml;
  /** Extra `<head>` content, e.g. the form_post page's one script. */
  readonly head?: SafeHtml;
}

export function renderDocument(doc: PageDocument): string {
  return html`<!doctype html>
<html lang="${doc.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${doc.title}</title>
<style>${new SafeHtml(css)}</style>
${doc.head ?? ''}</head>
<body>
<main>
<p class="brand">${doc.brand}</p>
${doc.body}
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
