/** The pieces the second-factor pages share (issue 35): the enrolment's QR code and key, the code field, the recovery codes. */
import { escapeHtml, html, SafeHtml } from './html.js';
import { hidden } from './page-shell.js';
import { passkeyScriptTag } from './passkey-script.js';
import type { EnrolmentPart } from './second-factor-views.js';
import type { PageText } from './text/index.js';

export function enrolmentPart(enrolment: EnrolmentPart, text: PageText): SafeHtml {
  const t = text.secondFactor;
  return html`<p>${t.enrolIntro}</p>
${new SafeHtml(enrolment.qrSvg.replace('<svg ', `<svg class="qr" role="img" aria-label="${escapeHtml(t.qrLabel)}" `))}
<p>${t.secretLabel}</p>
<p class="secret" id="totp-secret">${enrolment.secret.match(/.{1,4}/g)!.join(' ')}</p>`;
}

/** A one-time code field; `recovery` says a recovery code is welcome too. */
export function codeField(text: PageText, recovery: boolean): SafeHtml {
  const t = text.secondFactor;
  return html`<label for="code">${recovery ? t.codeOrRecoveryLabel : t.codeLabel}</label>
<input type="text" id="code" name="code" class="code-input" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" maxlength="40" required autofocus${recovery ? '' : html` inputmode="numeric" pattern="[0-9 ]*"`}>`;
}

export function recoveryCodeList(codes: readonly string[], text: PageText): SafeHtml {
  return html`<p>${text.secondFactor.recoveryIntro}</p>
<ol class="recovery-codes">${codes.map((c) => html`<li>${c}</li>`)}</ol>`;
}

/**
 * A form that runs a passkey ceremony with JavaScript (`passkey-script.ts`) and posts the
 * browser's answer in `response`; `options` is the ceremony's JSON. The script goes once, after
 * the last such form (`withScript`). With `autofill` (a passwordless sign-in) the browser is
 * also asked, when the page loads, to offer the person's passkeys among the username field's
 * suggestions (WebAuthn conditional mediation: the field's `autocomplete` ends in `webauthn`).
 */
export function passkeyForm(spec: {
  action: string; ceremony: 'register' | 'authenticate'; options: string; fields: ReadonlyArray<readonly [string, string]>;
  button: string; extra?: SafeHtml; secondary?: boolean; withScript: boolean; autofill?: boolean;
}, text: PageText): SafeHtml {
  const t = text.secondFactor;
  return html`<form method="post" action="${spec.action}" data-passkey="${spec.ceremony}" data-options="${spec.options}"${spec.autofill ? html` data-passkey-autofill` : ''}>
${spec.fields.map(([n, v]) => hidden(n, v))}${hidden('response', '')}
${spec.extra ?? ''}
<p class="notice passkey-failed" role="alert" tabindex="-1" hidden>${t.passkeyFailed}</p>
<noscript><p class="muted">${t.passkeyNeedsScript}</p></noscript>
<div class="actions"><button type="submit"${spec.secondary ? html` class="secondary"` : ''}>${spec.button}</button></div>
</form>${spec.withScript ? passkeyScriptTag() : ''}`;
}
