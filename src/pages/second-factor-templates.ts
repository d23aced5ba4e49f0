/** Server-rendered HTML of the account page's second factor (`/account/second-factor`, issue 35); works without JavaScript. */
import type { FactorStatus } from '../second-factor/second-factors.js';
import { html, type SafeHtml } from './html.js';
import { hidden, notice, renderDocument } from './page-shell.js';
import { codeField, enrolmentPart, passkeyForm, recoveryCodeList } from './second-factor-parts.js';
import { doneNotices, type EnrolmentPart, type SecondFactorNoticeId } from './second-factor-views.js';
import type { PageText } from './text/index.js';

export type SecondFactorAccountView =
  | {
      readonly kind: 'overview'; readonly csrf: string; readonly status: FactorStatus; readonly stepUp: boolean; readonly notice?: SecondFactorNoticeId;
      /** With passkeys on: the person's passkeys, and the options of a new one's registration (none while a step-up is due). */
      readonly passkeys?: ReadonlyArray<{ readonly id: string; readonly name: string }>;
      readonly registerOptions?: string;
    }
  | { readonly kind: 'enrol'; readonly csrf: string; readonly enrolment: EnrolmentPart; readonly notice?: SecondFactorNoticeId }
  | { readonly kind: 'recovery-codes'; readonly codes: readonly string[] }
  | { readonly kind: 'notice'; readonly notice: 'sign-in-first' | 'not-here' | 'form-expired' };

export function renderSecondFactorPage(view: SecondFactorAccountView, { action, text }: { action: string; text: PageText }): string {
  const t = text.secondFactor;
  const title = view.kind === 'enrol' ? t.enrolTitle : view.kind === 'recovery-codes' ? t.recoveryTitle : t.accountTitle;
  return renderDocument({ text, title, brand: t.brand, body: body(view, title, action, text) });
}

function body(view: SecondFactorAccountView, title: string, action: string, text: PageText): SafeHtml {
  const t = text.secondFactor;
  switch (view.kind) {
    case 'overview': {
      const s = view.status;
      return html`<h1>${title}</h1>
${notice(view.notice && !doneNotices.has(view.notice) ? t.notices[view.notice] : undefined)}${view.notice && doneNotices.has(view.notice) ? html`<p role="status">${t.notices[view.notice]}</p>` : ''}
<p>${s.totp === 'active' ? t.active : t.inactive}</p>
${s.totp === 'active' && s.recoveryCodesTotal > 0 ? html`<p>${t.recoveryLeft(s.recoveryCodesLeft, s.recoveryCodesTotal)}</p>` : ''}
${view.stepUp ? html`<p class="notice" role="alert">${t.stepUpFirst}</p>` : html`<form method="post" action="${action}">
${hidden('csrf', view.csrf)}
<div class="actions">${s.totp === 'active'
    ? html`<button type="submit" name="action" value="recovery-codes">${t.newRecoveryCodes}</button>`
    : html`<button type="submit" name="action" value="enrol">${t.setUp}</button>`}</div>
</form>`}${view.passkeys ? passkeySection(view, action, text) : ''}`;
    }
    case 'enrol':
      return html`<h1>${title}</h1>
${notice(view.notice && t.notices[view.notice])}
${enrolmentPart(view.enrolment, text)}
<form method="post" action="${action}">
${hidden('csrf', view.csrf)}${hidden('action', 'confirm')}
${codeField(text, false)}
<div class="actions"><button type="submit">${t.enrolSubmit}</button></div>
</form>`;
    case 'recovery-codes':
      return html`<h1>${title}</h1>
${recoveryCodeList(view.codes, text)}
<p><a href="${action}">${t.continue}</a></p>`;
    case 'notice':
      return html`<h1>${title}</h1>
<p role="alert">${view.notice === 'sign-in-first' ? t.signInFirst : view.notice === 'not-here' ? t.notHere : text.messages['form-expired'].text}</p>`;
  }
}

/** The person's passkeys, each with a form to rename it and a button to remove it, and the form that adds one (JavaScript). */
function passkeySection(view: Extract<SecondFactorAccountView, { kind: 'overview' }>, action: string, text: PageText): SafeHtml {
  const t = text.secondFactor;
  const list = view.passkeys ?? [];
  return html`<h2>${t.passkeysHeading}</h2>
${list.length === 0 ? html`<p>${t.passkeysNone}</p>` : html`<ul class="scopes passkeys">${list.map((p, i) => html`<li><span class="passkey-name">${p.name}</span>${view.stepUp ? '' : html`<form method="post" action="${action}">
${hidden('csrf', view.csrf)}${hidden('action', 'rename-passkey')}${hidden('credential', p.id)}
<label for="rename-passkey-${String(i)}">${t.renameLabel(p.name)}</label>
<input type="text" id="rename-passkey-${String(i)}" name="name" value="${p.name}" maxlength="64" autocomplete="off" required>
<div class="actions"><button type="submit" class="secondary">${t.renamePasskey(p.name)}</button></div>
</form>
<form method="post" action="${action}">
${hidden('csrf', view.csrf)}${hidden('action', 'remove-passkey')}${hidden('credential', p.id)}
<button type="submit" class="link">${t.removePasskey(p.name)}</button>
</form>`}</li>`)}</ul>`}
${view.registerOptions === undefined ? '' : passkeyForm({
    action, ceremony: 'register', options: view.registerOptions, fields: [['csrf', view.csrf], ['action', 'add-passkey']], button: t.addPasskey, withScript: true,
    extra: html`<label for="passkey-name">${t.passkeyName}</label>
<input type="text" id="passkey-name" name="name" maxlength="64" autocomplete="off">`,
  }, text)}`;
}
