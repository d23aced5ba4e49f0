/**
 * Server-rendered HTML of the sign-in, consent and logout pages, in the device page's style and
 * conventions (fields `username`/`password`, buttons `decision=approve`/`decision=deny`, the
 * CSRF token as a hidden input `csrf`), so one page walker serves both. No JavaScript needed;
 * the form_post response carries one hashed line of script and a button for when it is off.
 */
import { createHash } from 'node:crypto';
import type { ScopeLine } from '../device/page-views.js';
import type { SignInView } from './views.js';
import { html, SafeHtml } from '../pages/html.js';
import { hidden, notice, renderDocument } from '../pages/page-shell.js';

/** Where each page's forms post. */
export interface SignInPaths {
  readonly interaction: string;
  readonly endSession: string;
}

const titles: Record<SignInView['kind'], string> = { 'sign-in': 'Sign in', consent: 'Allow access?', logout: 'Sign out?', message: 'Sign in' };

export function renderSignInPage(view: SignInView, paths: SignInPaths): string {
  const title = view.kind === 'message' ? view.title : titles[view.kind];
  return renderDocument({ lang: 'en', title, brand: view.kind === 'logout' ? 'Sign out' : 'Sign in', body: body(view, paths) });
}

function body(view: SignInView, paths: SignInPaths): SafeHtml {
  switch (view.kind) {
    case 'sign-in':
      return html`<h1>Sign in</h1>
<p>Sign in to continue to <strong>${view.clientName}</strong>.</p>
${notice(view.message)}
<form method="post" action="${paths.interaction}">
${hidden('step', 'sign-in')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}
<label for="username">Username</label>
<input type="text" id="username" name="username" value="${view.username ?? ''}" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="256" required${view.username ? '' : html` autofocus`}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" maxlength="1024" required${view.username ? html` autofocus` : ''}>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`;
    case 'consent':
      return html`<h1>Allow access?</h1>
<p><strong>${view.clientName}</strong> is asking for access to your account.</p>
${view.scopes.length > 0 ? html`<h2>It will be able to:</h2>
<ul class="scopes">${view.scopes.map(scopeItem)}</ul>` : ''}
<form method="post" action="${paths.interaction}">
${hidden('step', 'consent')}${hidden('interaction', view.interaction)}${hidden('csrf', view.csrf)}
<div class="actions"><button type="submit" name="decision" value="approve">Approve</button><button type="submit" class="secondary" name="decision" value="deny">Deny</button></div>
</form>
<p class="muted">Signed in as <strong>${view.username}</strong>.</p>`;
    case 'logout':
      return html`<h1>Sign out?</h1>
<p>Do you want to sign out of this service?</p>
<form method="post" action="${paths.endSession}">
${hidden('csrf', view.csrf)}${view.fields.map(([n, v]) => hidden(n, v))}
<div class="actions"><button type="submit" name="decision" value="approve">Sign out</button><button type="submit" class="secondary" name="decision" value="deny">Stay signed in</button></div>
</form>`;
    case 'message':
      return html`<h1>${view.title}</h1>
<p role="alert">${view.text}</p>`;
  }
}

function scopeItem(scope: ScopeLine): SafeHtml {
  return html`<li>${scope.description ?? scope.name}${scope.description ? html`<span class="scope-name">${scope.name}</span>` : ''}</li>`;
}

/** OAuth 2.0 Form Post Response Mode: the only script any page has, allowed by its hash. */
const submitScript = 'document.forms[0].submit()';
export const submitScriptHash = `'sha256-${createHash('sha256').update(submitScript).digest('base64')}'`;

export function renderFormPost(action: string, fields: ReadonlyArray<readonly [string, string]>): string {
  return renderDocument({
    lang: 'en',
    title: 'Continue',
    brand: 'Sign in',
    body: html`<h1>Continue</h1>
<form method="post" action="${action}">
${fields.map(([n, v]) => hidden(n, v))}
<noscript><div class="actions"><button type="submit">Continue</button></div></noscript>
</form>
<script>${new SafeHtml(submitScript)}</script>`,
  });
}
