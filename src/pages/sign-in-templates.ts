/**
 * Server-rendered HTML of the sign-in, consent and logout pages, in the reader's language (the
 * text catalogue in `src/pages/text`, shared with the device page) and in the device page's
 * conventions (fields `username`/`password`, buttons `decision=approve`/`decision=deny`, the
 * CSRF token as a hidden input `csrf`), so one page walker serves both. No JavaScript needed;
 * the form_post response carries one hashed line of script and a button for when it is off.
 */
import { createHash } from 'node:crypto';
import type { ScopeLine } from './device-views.js';
import type { SignInMessageId, SignInView } from './sign-in-views.js';
import { html, SafeHtml } from './html.js';
import { hidden, notice, renderDocument } from './page-shell.js';
import type { PageText } from './text/index.js';
import { defaultBranding, type Branding } from './branding.js';
import type { PageTemplateName } from '../config/branding.js';
import type { TemplateValues } from './page-template.js';
import { describeScope } from './scope-description.js';
import { codeField, enrolmentPart, passkeyForm, recoveryCodeList } from './second-factor-parts.js';

/** Where each page's forms post. */
export interface SignInPaths {
  readonly interaction: string;
  readonly endSession: string;
  /** The service's start page, linked from error pages so none is a dead end (issue 39). */
  readonly home?: string;
  /** Issue 34: the "Forgot password?" page, when `smtp` is configured; absent, the page says nothing of it. */
  readonly forgotPassword?: string | undefined;
}

function titleOf(view: SignInView, text: PageText): string {
  switch (view.kind) {
    case 'sign-in':
      return text.signIn.title;
    case 'consent':
      return text.consent.title;
    case 'logout':
      return text.authorize.logout.title;
    case 'message':
      return text.authorize.messages[view.message].title;
    case 'second-factor':
      return text.secondFactor.title;
    case 'enrol-second-factor':
      return text.secondFactor.enrolTitle;
    case 'recovery-codes':
      return text.secondFactor.recoveryTitle;
  }
}

const signOutMessages: ReadonlySet<SignInMessageId> = new Set<SignInMessageId>([
  'sign-out-unreadable', 'sign-out-invalid', 'sign-out-redirect-unregistered', 'sign-out-expired', 'still-signed-in', 'signed-out',
]);

/** The deployment's templates by view; the second-factor pages (issue 35) have none yet and are always the built-in ones. */
const templateOf: Readonly<Partial<Record<SignInView['kind'], PageTemplateName>>> = { 'sign-in': 'signIn', consent: 'consent', logout: 'logout', message: 'message' };

export function renderSignInPage(view: SignInView, paths: SignInPaths, text: PageText, branding: Branding = defaultBranding): string {
  const signingOut = view.kind === 'logout' || (view.kind === 'message' && signOutMessages.has(view.message));
  const brand = signingOut ? text.authorize.signOutBrand : text.authorize.brand;
  // Issue 34: a deployment's `signIn` template has no placeholder for the providers' buttons yet,
  // so a page offering providers is the built-in one (else nobody could choose one).
  // Issue 35: nor for the passkey form, so with passkeys on the sign-in page is the built-in one too.
  const offersProviders = view.kind === 'sign-in' && ((view.providers?.length ?? 0) > 0 || view.passkeyOptions !== undefined);
  const name = templateOf[view.kind];
  const template = offersProviders || name === undefined ? undefined : branding.templates[name];
  const content = template ? template.render(templateValues(view, paths, text, branding)) : body(view, paths, text);
  return renderDocument({ text, title: titleOf(view, text), brand, body: content }, branding);
}

/** What a deployment's template for the view may use (`template-values.ts` lists the names). */
export function templateValues(view: SignInView, paths: SignInPaths, text: PageText, branding: Branding): TemplateValues {
  const common = { lang: text.lang, productName: branding.productName, title: titleOf(view, text) };
  switch (view.kind) {
    case 'sign-in':
      return {
        ...common, intro: text.authorize.signInIntro(html`${view.clientName}`), notice: signInMessage(view, text), action: paths.interaction,
        hiddenFields: html`${hidden('step', 'sign-in')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}`,
        username: view.username ?? '', usernameLabel: text.signIn.username, passwordLabel: text.signIn.password, submitLabel: text.signIn.submit,
        clientName: view.clientName, userCode: undefined, codeLabel: undefined,
        forgotPasswordUrl: paths.forgotPassword, forgotPasswordLabel: paths.forgotPassword === undefined ? undefined : text.passwordReset.forgot,
      };
    case 'consent': {
      const t = text.consent;
      const a = text.authorize;
      return {
        ...common, intro: t.intro(html`${view.clientName}`), clientName: view.clientName,
        warning: view.unverified ? a.unverifiedClient(html`${view.clientName}`) : undefined,
        returnTo: view.returnTo === undefined ? undefined : a.returnsTo(html`${view.returnTo}`),
        userCode: undefined, checkCode: undefined, scopesHeading: t.scopesHeading,
        scopes: view.scopes.map((scope) => ({ name: scope.name, description: describeScope(scope, text) })),
        action: paths.interaction, hiddenFields: html`${hidden('step', 'consent')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}`,
        approveLabel: t.approve, denyLabel: t.deny, signedInAs: t.signedInAs(html`${view.username}`),
        signOutHiddenFields: html`${hidden('step', 'sign-out')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}`, signOutLabel: t.signOut,
      };
    }
    case 'logout': {
      const t = text.authorize.logout;
      return {
        ...common, question: t.question, action: paths.endSession, hiddenFields: html`${hidden('csrf', view.csrf)}${view.fields.map(([n, v]) => hidden(n, v))}`,
        confirmLabel: t.confirm, stayLabel: t.stay,
      };
    }
    case 'message':
      return { ...common, text: text.authorize.messages[view.message].text, startAgainUrl: undefined, startAgainLabel: undefined };
    default:
      // No deployment template for the second-factor pages (`templateOf`): only the title.
      return common;
  }
}

/** What the sign-in form shows above its fields: our notice in the reader's language, or a plugin's own message. */
export function signInMessage(view: Extract<SignInView, { kind: 'sign-in' }>, text: PageText): string | undefined {
  return view.notice ? text.authorize.notices[view.notice] : view.message;
}

function body(view: SignInView, paths: SignInPaths, text: PageText): SafeHtml {
  const title = titleOf(view, text);
  switch (view.kind) {
    case 'sign-in':
      return html`<h1>${title}</h1>
<p>${text.authorize.signInIntro(html`${view.clientName}`)}</p>
${notice(signInMessage(view, text))}${upstreamChoice(view, paths, text)}
${view.providers && view.passwordForm === false ? '' : html`<form method="post" action="${paths.interaction}">
${hidden('step', 'sign-in')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}
<label for="username">${text.signIn.username}</label>
<input type="text" id="username" name="username" value="${view.username ?? ''}" autocomplete="${view.passkeyOptions === undefined ? 'username' : 'username webauthn'}" autocapitalize="none" spellcheck="false" maxlength="256" required${view.username ? '' : html` autofocus`}>
<label for="password">${text.signIn.password}</label>
<input type="password" id="password" name="password" autocomplete="current-password" maxlength="1024" required${view.username ? html` autofocus` : ''}>
<div class="actions"><button type="submit">${text.signIn.submit}</button></div>
</form>${paths.forgotPassword === undefined ? '' : html`
<p><a href="${paths.forgotPassword}">${text.passwordReset.forgot}</a></p>`}`}${view.passkeyOptions === undefined ? '' : passkeyForm({
    action: paths.interaction, ceremony: 'authenticate', options: view.passkeyOptions, button: text.secondFactor.signInWithPasskey, withScript: true, secondary: true,
    fields: [['step', 'passkey-sign-in'], ['interaction', view.interaction], ['csrf', view.csrf]], autofill: true,
  }, text)}`;
    case 'consent': {
      const t = text.consent;
      const a = text.authorize;
      return html`<h1>${title}</h1>
<p>${t.intro(html`${view.clientName}`)}</p>
${view.unverified ? html`<p class="notice" role="alert">${a.unverifiedClient(html`${view.clientName}`)}</p>` : ''}
${view.returnTo === undefined ? '' : html`<p>${a.returnsTo(html`${view.returnTo}`)}</p>`}
${view.scopes.length > 0 ? html`<h2>${t.scopesHeading}</h2>
<ul class="scopes">${view.scopes.map((scope) => scopeItem(scope, text))}</ul>` : ''}
${view.resources?.length ? html`<h2>${t.resourcesHeading}</h2>
<ul class="resources">${view.resources.map((r) => html`<li>${r}</li>`)}</ul>` : ''}
<form method="post" action="${paths.interaction}">
${hidden('step', 'consent')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}
<div class="actions"><button type="submit" name="decision" value="approve">${t.approve}</button><button type="submit" class="secondary" name="decision" value="deny">${t.deny}</button></div>
</form>
<form method="post" action="${paths.interaction}">
${hidden('step', 'sign-out')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}
<p class="muted">${t.signedInAs(html`${view.username}`)} <button type="submit" class="link">${t.signOut}</button></p>
</form>`;
    }
    case 'logout': {
      const t = text.authorize.logout;
      return html`<h1>${title}</h1>
<p>${t.question}</p>
<form method="post" action="${paths.endSession}">
${hidden('csrf', view.csrf)}${view.fields.map(([n, v]) => hidden(n, v))}
<div class="actions"><button type="submit" name="decision" value="approve">${t.confirm}</button><button type="submit" class="secondary" name="decision" value="deny">${t.stay}</button></div>
</form>`;
    }
    case 'message':
      return html`<h1>${title}</h1>
<p role="alert">${text.authorize.messages[view.message].text}</p>${wayBack(view, paths, text)}`;
    case 'second-factor':
      return html`<h1>${title}</h1>
${view.code ? html`<p>${text.secondFactor.intro}</p>` : ''}
${notice(view.notice && text.secondFactor.notices[view.notice])}
${view.passkeyOptions === undefined ? '' : passkeyForm({
    action: paths.interaction, ceremony: 'authenticate', options: view.passkeyOptions, button: text.secondFactor.usePasskey, withScript: true,
    fields: [['step', 'second-factor-passkey'], ['interaction', view.interaction], ['csrf', view.csrf]], secondary: view.code,
  }, text)}
${view.code ? html`${view.passkeyOptions === undefined ? '' : html`<p>${text.secondFactor.orCode}</p>`}
<form method="post" action="${paths.interaction}">
${hidden('step', 'second-factor')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}
${codeField(text, true)}
<div class="actions"><button type="submit">${text.secondFactor.submit}</button></div>
</form>` : ''}`;
    case 'enrol-second-factor':
      return html`<h1>${title}</h1>
<p>${text.secondFactor.enrolRequired}</p>
${notice(view.notice && text.secondFactor.notices[view.notice])}
${enrolmentPart(view.enrolment, text)}
<form method="post" action="${paths.interaction}">
${hidden('step', 'enrol-second-factor')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}
${codeField(text, false)}
<div class="actions"><button type="submit">${text.secondFactor.enrolSubmit}</button></div>
</form>`;
    case 'recovery-codes':
      return html`<h1>${title}</h1>
${recoveryCodeList(view.codes, text)}
<form method="post" action="${paths.interaction}">
${hidden('step', 'second-factor-continue')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}
<div class="actions"><button type="submit">${text.secondFactor.continue}</button></div>
</form>`;
  }
}

/** Under a refusal or failure: the reference to quote and the way to the start page. */
function wayBack(view: Extract<SignInView, { kind: 'message' }>, paths: SignInPaths, text: PageText): SafeHtml {
  if (view.reference === undefined) return html``;
  return html`
<p class="muted">${text.authorize.reference(html`${view.reference}`)}</p>${paths.home === undefined ? '' : html`
<p><a href="${paths.home}">${text.authorize.startPage}</a></p>`}`;
}

/**
 * ISSUE 34: a button per upstream identity provider (one form, the button's `provider` value
 * says which), after a failure the sentence naming the provider and the way back.
 */
function upstreamChoice(view: Extract<SignInView, { kind: 'sign-in' }>, paths: SignInPaths, text: PageText): SafeHtml {
  if (!view.providers || view.providers.length === 0) return html``;
  const t = text.upstream;
  const failure = view.upstreamFailure;
  const said = failure === undefined ? undefined : failure.reason ? t.failed[failure.reason](failure.provider) : t.failedWith(failure.provider, failure.message);
  return html`${failure ? html`<p class="notice" role="alert">${said}</p>
<p>${t.tryAgain}</p>` : ''}
<form method="post" action="${paths.interaction}">
${hidden('step', 'upstream')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}
${view.providers.map((p) => html`<div class="actions"><button type="submit" class="secondary" name="provider" value="${p.name}">${t.signInWith(html`${p.displayName}`)}</button></div>`)}
</form>
${view.passwordForm === false ? '' : html`<p class="muted">${t.orPassword}</p>`}`;
}

/** The configured description in the reader's language, else the catalogue's for a standard scope, else the name alone. */
function scopeItem(scope: ScopeLine, text: PageText): SafeHtml {
  const description = describeScope(scope, text);
  return html`<li>${description ?? scope.name}${description ? html`<span class="scope-name">${scope.name}</span>` : ''}</li>`;
}

/** OAuth 2.0 Form Post Response Mode: the only script any page has, allowed by its hash. */
const submitScript = 'document.forms[0].submit()';
export const submitScriptHash = `'sha256-${createHash('sha256').update(submitScript).digest('base64')}'`;

export function renderFormPost(action: string, fields: ReadonlyArray<readonly [string, string]>, text: PageText, branding: Branding = defaultBranding): string {
  return renderDocument({
    text,
    title: text.authorize.continue,
    brand: text.authorize.brand,
    body: html`<h1>${text.authorize.continue}</h1>
<form method="post" action="${action}">
${fields.map(([n, v]) => hidden(n, v))}
<noscript><div class="actions"><button type="submit">${text.authorize.continue}</button></div></noscript>
</form>
<script>${new SafeHtml(submitScript)}</script>`,
  }, branding);
}
