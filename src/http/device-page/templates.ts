/** Server-rendered HTML for each step of the verification page; works without JavaScript. */
import type { PageView, ScopeLine } from '../../device/page-views.js';
import { html, SafeHtml } from './html.js';
import { css } from './styles.js';

export interface RenderOptions {
  /** Where the forms post, e.g. `/device`. */
  readonly action: string;
  /** Numeric user codes get a numeric keypad on phones. */
  readonly numericCodes: boolean;
}

const titles: Record<PageView['kind'], string> = {
  'enter-code': 'Connect a device',
  'sign-in': 'Sign in',
  consent: 'Allow access?',
  done: 'Done',
  message: 'Device sign-in',
};

export function renderPage(view: PageView, options: RenderOptions): string {
  const title = view.kind === 'message' ? view.title : view.kind === 'done' ? doneTitle(view.approved) : titles[view.kind];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${new SafeHtml(css)}</style>
</head>
<body>
<main>
<p class="brand">Device sign-in</p>
${body(view, options)}
</main>
</body>
</html>
`.value;
}

function body(view: PageView, options: RenderOptions): SafeHtml {
  switch (view.kind) {
    case 'enter-code':
      return enterCode(view, options);
    case 'sign-in':
      return signIn(view, options);
    case 'consent':
      return consent(view, options);
    case 'done':
      return html`<h1>${doneTitle(view.approved)}</h1>
<p>${view.approved
        ? html`<strong>${view.clientName}</strong> can now use your account. You can return to your device.`
        : html`<strong>${view.clientName}</strong> was not given access. You can close this page.`}</p>`;
    case 'message':
      return html`<h1>${view.title}</h1>
<p role="alert">${view.text}</p>
<p><a href="${options.action}">Start again</a></p>`;
  }
}

const doneTitle = (approved: boolean): string => (approved ? 'Device connected' : 'Request denied');

function notice(message: string | undefined): SafeHtml {
  return html`${message ? html`<p class="notice" role="alert">${message}</p>` : ''}`;
}

function hidden(name: string, value: string): SafeHtml {
  return html`<input type="hidden" name="${name}" value="${value}">`;
}

function enterCode(view: Extract<PageView, { kind: 'enter-code' }>, options: RenderOptions): SafeHtml {
  return html`<h1>Connect a device</h1>
<p>Enter the code shown on your device.</p>
${notice(view.message)}
<form method="post" action="${options.action}">
${hidden('step', 'code')}${hidden('csrf', view.csrf)}
<label for="user_code">Code</label>
<input class="code-input" type="text" id="user_code" name="user_code" value="${view.userCode}" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="32" required${options.numericCodes ? html` inputmode="numeric"` : ''}${view.userCode ? '' : html` autofocus`}>
<div class="actions"><button type="submit">Continue</button></div>
</form>`;
}

function signIn(view: Extract<PageView, { kind: 'sign-in' }>, options: RenderOptions): SafeHtml {
  return html`<h1>Sign in</h1>
<p><strong>${view.clientName}</strong> wants to connect to your account. Sign in to continue.</p>
${notice(view.message)}
<form method="post" action="${options.action}">
${hidden('step', 'sign-in')}${hidden('csrf', view.csrf)}${hidden('user_code', view.userCode)}
<label for="username">Username</label>
<input type="text" id="username" name="username" value="${view.username ?? ''}" autocomplete="username" autocapitalize="none" spellcheck="false" required${view.username ? '' : html` autofocus`}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${view.username ? html` autofocus` : ''}>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<p class="muted">Code: <span class="code">${view.userCode}</span></p>`;
}

function scopeItem(scope: ScopeLine): SafeHtml {
  return html`<li>${scope.description ?? scope.name}${scope.description ? html`<span class="scope-name">${scope.name}</span>` : ''}</li>`;
}

function consent(view: Extract<PageView, { kind: 'consent' }>, options: RenderOptions): SafeHtml {
  return html`<h1>Allow access?</h1>
<p><strong>${view.clientName}</strong> is asking for access to your account.</p>
<p>Check that your device shows this code: <span class="code">${view.userCode}</span></p>
${view.scopes.length > 0
    ? html`<h2>It will be able to:</h2>
<ul class="scopes">${view.scopes.map(scopeItem)}</ul>`
    : ''}
<form method="post" action="${options.action}">
${hidden('step', 'consent')}${hidden('csrf', view.csrf)}${hidden('user_code', view.userCode)}
<div class="actions"><button type="submit" name="decision" value="approve">Approve</button><button type="submit" class="secondary" name="decision" value="deny">Deny</button></div>
</form>
<form method="post" action="${options.action}">
${hidden('step', 'sign-out')}${hidden('csrf', view.csrf)}${hidden('user_code', view.userCode)}
<p class="muted">Signed in as <strong>${view.username}</strong>. <button type="submit" class="link">Not you? Sign out</button></p>
</form>`;
}
