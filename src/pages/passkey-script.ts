/**
 * The one script of the passkey forms (issue 35): `@simplewebauthn/browser`'s bundle and a few
 * lines that run the ceremony when a `form[data-passkey]` is submitted, put the browser's answer
 * in the form's `response` field and submit it; on a `form[data-passkey-autofill]` they also
 * start a conditional one (passkeys offered in the username field's autofill). Inline, allowed by its hash (the pages' CSP
 * names no script source), read and hashed once at start-up. Without JavaScript the forms say
 * that passkeys need it; everything else on the pages works without.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { html, SafeHtml } from './html.js';

const bundlePath = join(dirname(createRequire(import.meta.url).resolve('@simplewebauthn/browser')), '../dist/bundle/index.umd.min.js');

const glue = `
document.querySelectorAll('form[data-passkey]').forEach(function (form) {
  form.addEventListener('submit', function (event) {
    var field = form.elements.namedItem('response');
    if (field.value) return;
    event.preventDefault();
    var options = JSON.parse(form.getAttribute('data-options'));
    var lib = window.SimpleWebAuthnBrowser;
    var ceremony = form.getAttribute('data-passkey') === 'register' ? lib.startRegistration({ optionsJSON: options }) : lib.startAuthentication({ optionsJSON: options });
    ceremony.then(function (answer) { field.value = JSON.stringify(answer); form.submit(); }, function () {
      var note = form.querySelector('.passkey-failed');
      if (note) { note.hidden = false; note.focus(); }
    });
  });
});
// Conditional mediation: the person's passkeys among the username field's suggestions, where the
// browser offers it. Choosing one posts the form as its button would; a button press aborts it.
document.querySelectorAll('form[data-passkey-autofill]').forEach(function (form) {
  var lib = window.SimpleWebAuthnBrowser;
  lib.browserSupportsWebAuthnAutofill().then(function (supported) {
    if (!supported) return;
    lib.startAuthentication({ optionsJSON: JSON.parse(form.getAttribute('data-options')), useBrowserAutofill: true }).then(function (answer) {
      form.elements.namedItem('response').value = JSON.stringify(answer);
      form.submit();
    }, function () {});
  });
});`;

let loaded: { readonly tag: SafeHtml; readonly hash: string } | undefined;

function load(): { readonly tag: SafeHtml; readonly hash: string } {
  // `</` cannot end the element early: the bundle is minified code we ship, checked here anyway.
  const source = `${readFileSync(bundlePath, 'utf8').replace(/\/\/# sourceMappingURL=.*$/m, '')}\n${glue}`;
  if (source.includes('</script')) throw new Error('the passkey script contains </script');
  return { tag: html`<script>${new SafeHtml(source)}</script>`, hash: `'sha256-${createHash('sha256').update(source).digest('base64')}'` };
}

/** The `<script>` element, for the end of a page with a passkey form. */
export function passkeyScriptTag(): SafeHtml {
  loaded ??= load();
  return loaded.tag;
}

/** Its CSP hash source. */
export function passkeyScriptHash(): string {
  loaded ??= load();
  return loaded.hash;
}
