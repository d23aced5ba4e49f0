/** Server-rendered HTML for each step of the verification page; works without JavaScript. */
import { codeField, passkeyForm } from './second-factor-parts.js';
import type { MessageView, PageView, ScopeLine } from './device-views.js';
import { html, type SafeHtml } from './html.js';
import { hidden, notice, renderDocument } from './page-shell.js';
import type { PageText } from './text/index.js';
import { defaultBranding, type Branding } from './branding.js';
import type { PageTemplateName } from '../config/branding.js';
import type { TemplateValues } from './page-template.js';
import { describeScope } from './scope-description.js';

export interface RenderOptions {
  /** Where the forms post, e.g. `/device` (with `?ui_locales=de` when that chose the language). */
  readonly action: string;
  /** Numeric user codes get a numeric keypad on phones. */
  readonly numericCodes: boolean;
  /** The words, in the reader's language. */
  readonly text: PageText;
  /** The deployment's look and templates; default: the built-in ones. */
  readonly branding?: Branding;
  /** Issue 34: the "Forgot password?" page, when `smtp` is configured. */
  readonly forgotPassword?: string | undefined;
}

function titleOf(view: PageView, text: PageText): string {
  switch (view.kind) {
    case 'enter-code':
      return text.enterCode.title;
    case 'sign-in':
      return text.signIn.title;
    case 'consent':
      return text.consent.title;
    case 'done':
      return view.approved ? text.done.approvedTitle : text.done.deniedTitle;
    case 'message':
      return text.messages[view.message].title;
  }
}

const templateOf: Readonly<Record<PageView['kind'], PageTemplateName>> = {
  'enter-code': 'deviceCode', 'sign-in': 'signIn', consent: 'consent', done: 'deviceDone', message: 'message',
};

export function renderPage(view: PageView, options: RenderOptions): string {
  const { text } = options;
  const branding = options.branding ?? defaultBranding;
  // Issue 35: a deployment's sign-in template has no code field, so the form asking for one is ours.
  // The second factor's fields and the passkey form are the built-in page's (a deployment template has no place for them).
  const template = view.kind === 'sign-in' && (view.askSecondFactor || view.passkeyOptions !== undefined) ? undefined : branding.templates[templateOf[view.kind]];
  const content = template ? template.render(templateValues(view, options, branding)) : body(view, options);
  return renderDocument({ text, title: titleOf(view, text), brand: text.brand, body: content }, branding);
}

/** What a deployment's template for the step may use (`template-values.ts` lists the names); the same names as on the sign-in pages where they mean the same. */
export function templateValues(view: PageView, { action, numericCodes, text, forgotPassword }: RenderOptions, branding: Branding): TemplateValues {
  const common = { lang: text.lang, productName: branding.productName, title: titleOf(view, text) };
  switch (view.kind) {
    case 'enter-code':
      return {
        ...common, intro: text.enterCode.intro, notice: view.notice && text.notices[view.notice], action,
        hiddenFields: html`${hidden('step', 'code')}${hidden('csrf', view.csrf)}`, label: text.enterCode.label, submitLabel: text.enterCode.submit,
        userCode: view.userCode, numeric: numericCodes,
      };
    case 'sign-in':
      return {
        ...common, intro: text.signIn.intro(html`${view.clientName}`), notice: view.notice && text.notices[view.notice], action,
        hiddenFields: html`${hidden('step', 'sign-in')}${hidden('csrf', view.csrf)}${hidden('user_code', view.userCode)}`,
        username: view.username ?? '', usernameLabel: text.signIn.username, passwordLabel: text.signIn.password, submitLabel: text.signIn.submit,
        clientName: view.clientName, userCode: view.userCode, codeLabel: text.signIn.code, forgotPasswordUrl: forgotPassword, forgotPasswordLabel: forgotPassword === undefined ? undefined : text.passwordReset.forgot,
      };
    case 'consent': {
      const t = text.consent;
      return {
        ...common, intro: t.intro(html`${view.clientName}`), clientName: view.clientName, warning: undefined, returnTo: undefined,
        userCode: view.userCode, checkCode: t.checkCode, scopesHeading: t.scopesHeading,
        scopes: view.scopes.map((scope) => ({ name: scope.name, description: describeScope(scope, text) })),
        action, hiddenFields: html`${hidden('step', 'consent')}${hidden('csrf', view.csrf)}${hidden('user_code', view.userCode)}`,
        approveLabel: t.approve, denyLabel: t.deny, signedInAs: t.signedInAs(html`${view.username}`),
        signOutHiddenFields: html`${hidden('step', 'sign-out')}${hidden('csrf', view.csrf)}${hidden('user_code', view.userCode)}`, signOutLabel: t.signOut,
      };
    }
    case 'done': {
      const client = html`${view.clientName}`;
      return { ...common, text: view.approved ? text.done.approved(client) : text.done.denied(client), approved: view.approved, clientName: view.clientName };
    }
    case 'message':
      return { ...common, text: messageText(view, text), startAgainUrl: action, startAgainLabel: text.startAgain };
  }
}

function body(view: PageView, options: RenderOptions): SafeHtml {
  const { text } = options;
  switch (view.kind) {
    case 'enter-code':
      return enterCode(view, options);
    case 'sign-in':
      return signIn(view, options);
    case 'consent':
      return consent(view, options);
    case 'done': {
      const client = html`${view.clientName}`;
      return html`<h1>${titleOf(view, text)}</h1>
<p>${view.approved ? text.done.approved(client) : text.done.denied(client)}</p>`;
    }
    case 'message':
      return html`<h1>${titleOf(view, text)}</h1>
<p role="alert">${messageText(view, text)}</p>
<p><a href="${options.action}">${text.startAgain}</a></p>`;
  }
}

function messageText(view: MessageView, text: PageText): string {
  return 'minutes' in view ? text.messages[view.message].text(view.minutes, view.until) : text.messages[view.message].text;
}

function enterCode(view: Extract<PageView, { kind: 'enter-code' }>, { action, numericCodes, text }: RenderOptions): SafeHtml {
  const t = text.enterCode;
  return html`<h1>${t.title}</h1>
<p>${t.intro}</p>
${notice(view.notice && text.notices[view.notice])}
<form method="post" action="${action}">
${hidden('step', 'code')}${hidden('csrf', view.csrf)}
<label for="user_code">${t.label}</label>
<input class="code-input" type="text" id="user_code" name="user_code" value="${view.userCode}" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="32" required${numericCodes ? html` inputmode="numeric"` : ''}${view.userCode ? '' : html` autofocus`}>
<div class="actions"><button type="submit">${t.submit}</button></div>
</form>`;
}

function signIn(view: Extract<PageView, { kind: 'sign-in' }>, { action, text, forgotPassword }: RenderOptions): SafeHtml {
  const t = text.signIn;
  return html`<h1>${t.title}</h1>
<p>${t.intro(html`${view.clientName}`)}</p>
${notice(view.notice && text.notices[view.notice])}
<form method="post" action="${action}">
${hidden('step', 'sign-in')}${hidden('csrf', view.csrf)}${hidden('user_code', view.userCode)}
<label for="username">${t.username}</label>
<input type="text" id="username" name="username" value="${view.username ?? ''}" autocomplete="${view.passkeyOptions === undefined ? 'username' : 'username webauthn'}" autocapitalize="none" spellcheck="false" required${view.username ? '' : html` autofocus`}>
<label for="password">${t.password}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${view.username && !view.askSecondFactor ? html` autofocus` : ''}>
${view.askSecondFactor ? codeField(text, true) : ''}
<div class="actions"><button type="submit">${t.submit}</button></div>
</form>${view.passkeyOptions === undefined ? '' : passkeyForm({
    action, ceremony: 'authenticate', options: view.passkeyOptions, button: text.secondFactor.signInWithPasskey, withScript: true, secondary: true, autofill: true,
    fields: [['step', 'passkey'], ['csrf', view.csrf], ['user_code', view.userCode]],
  }, text)}${forgotPassword === undefined ? '' : html`
<p><a href="${forgotPassword}">${text.passwordReset.forgot}</a></p>`}
<p class="muted">${t.code} <span class="code">${view.userCode}</span></p>`;
}

function scopeItem(scope: ScopeLine, text: PageText): SafeHtml {
  const description = describeScope(scope, text);
  return html`<li>${description ?? scope.name}${description ? html`<span class="scope-name">${scope.name}</span>` : ''}</li>`;
}

function consent(view: Extract<PageView, { kind: 'consent' }>, { action, text }: RenderOptions): SafeHtml {
  const t = text.consent;
  return html`<h1>${t.title}</h1>
<p>${t.intro(html`${view.clientName}`)}</p>
<p>${t.checkCode} <span class="code">${view.userCode}</span></p>
${view.scopes.length > 0
    ? html`<h2>${t.scopesHeading}</h2>
<ul class="scopes">${view.scopes.map((scope) => scopeItem(scope, text))}</ul>`
    : ''}
${view.resources?.length ? html`<h2>${t.resourcesHeading}</h2>
<ul class="resources">${view.resources.map((r) => html`<li>${r}</li>`)}</ul>` : ''}
<form method="post" action="${action}">
${hidden('step', 'consent')}${hidden('csrf', view.csrf)}${hidden('user_code', view.userCode)}
<div class="actions"><button type="submit" name="decision" value="approve">${t.approve}</button><button type="submit" class="secondary" name="decision" value="deny">${t.deny}</button></div>
</form>
<form method="post" action="${action}">
${hidden('step', 'sign-out')}${hidden('csrf', view.csrf)}${hidden('user_code', view.userCode)}
<p class="muted">${t.signedInAs(html`${view.username}`)} <button type="submit" class="link">${t.signOut}</button></p>
</form>`;
}
