/** The pieces the second-factor pages share (issue 35): the enrolment's QR code and key, the code field, the recovery codes. */
import { escapeHtml, html, SafeHtml } from './html.js';
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
