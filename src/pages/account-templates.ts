/** Server-rendered HTML of the password change and reset pages; they work without JavaScript. */
import type { AccountView } from './account-views.js';
import { html, type SafeHtml } from './html.js';
import { hidden, notice, renderDocument } from './page-shell.js';
import type { PageText } from './text/index.js';

export function renderAccountPage(view: AccountView, { action, text }: { action: string; text: PageText }): string {
  const t = text.account;
  const title = titleOf(view, text);
  return renderDocument({ text, title, brand: t.brand, body: body(view, title, action, text) });
}

function titleOf(view: AccountView, text: PageText): string {
  const r = text.passwordReset;
  switch (view.kind) {
    case 'change-password': return text.account.title;
    case 'password-changed': return text.account.doneTitle;
    case 'reset-request': case 'reset-throttled': return r.title;
    case 'reset-sent': return r.sentTitle;
    case 'reset-form': return r.newTitle;
    case 'reset-done': return r.doneTitle;
    case 'reset-unusable': return r.unusableTitle;
    case 'message': return text.messages[view.message].title;
  }
}

function body(view: AccountView, title: string, action: string, text: PageText): SafeHtml {
  const t = text.account;
  switch (view.kind) {
    case 'change-password': {
      const problem = view.broken ? t.broken(view.broken) : view.notice ? t.notices[view.notice] : undefined;
      return html`<h1>${title}</h1>
<p>${t.intro}</p>
${notice(problem)}
<form method="post" action="${action}">
${hidden('csrf', view.csrf)}
<label for="username">${text.signIn.username}</label>
<input type="text" id="username" name="username" value="${view.username ?? ''}" autocomplete="username" autocapitalize="none" spellcheck="false" required${view.username ? '' : html` autofocus`}>
<label for="current_password">${t.current}</label>
<input type="password" id="current_password" name="current_password" autocomplete="current-password" required${view.username ? html` autofocus` : ''}>
<label for="new_password">${t.next}</label>
<input type="password" id="new_password" name="new_password" autocomplete="new-password" required>
<label for="new_password_again">${t.again}</label>
<input type="password" id="new_password_again" name="new_password_again" autocomplete="new-password" required>
<div class="actions"><button type="submit">${t.submit}</button></div>
</form>`;
    }
    case 'password-changed':
      return html`<h1>${title}</h1>
<p role="status">${t.done}</p>`;
    case 'reset-request':
      return html`<h1>${title}</h1>
<p>${text.passwordReset.intro}</p>
${notice(view.notice && text.passwordReset.notices[view.notice])}
<form method="post" action="${action}">
${hidden('csrf', view.csrf)}
<label for="identifier">${text.passwordReset.identifier}</label>
<input type="text" id="identifier" name="identifier" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="256" required autofocus>
<div class="actions"><button type="submit">${text.passwordReset.submit}</button></div>
</form>`;
    case 'reset-sent':
      return html`<h1>${title}</h1>
<p role="status">${text.passwordReset.sent(view.minutes)}</p>`;
    case 'reset-throttled':
      return html`<h1>${title}</h1>
<p role="alert">${text.passwordReset.throttled(view.minutes)}</p>`;
    case 'reset-form': {
      const r = text.passwordReset;
      const problem = view.broken ? t.broken(view.broken) : view.notice ? r.notices[view.notice] : undefined;
      return html`<h1>${title}</h1>
<p>${r.newIntro(html`<strong>${view.username}</strong>`)}</p>
${notice(problem)}
<form method="post" action="${action}">
${hidden('csrf', view.csrf)}${hidden('token', view.token)}
<input type="hidden" name="username" value="${view.username}" autocomplete="username">
<label for="new_password">${t.next}</label>
<input type="password" id="new_password" name="new_password" autocomplete="new-password" maxlength="1024" required autofocus>
<label for="new_password_again">${t.again}</label>
<input type="password" id="new_password_again" name="new_password_again" autocomplete="new-password" maxlength="1024" required>
<div class="actions"><button type="submit">${r.submitNew}</button></div>
</form>`;
    }
    case 'reset-done':
      return html`<h1>${title}</h1>
<p role="status">${text.passwordReset.done}</p>`;
    case 'reset-unusable':
      return html`<h1>${title}</h1>
<p role="alert">${text.passwordReset.unusable}</p>
<p><a href="${action}">${text.passwordReset.requestAnother}</a></p>`;
    case 'message':
      return html`<h1>${title}</h1>
<p role="alert">${'minutes' in view ? text.messages[view.message].text(view.minutes, view.until) : text.messages[view.message].text}</p>
<p><a href="${action}">${text.startAgain}</a></p>`;
  }
}
