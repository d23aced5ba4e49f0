/** Server-rendered HTML of the password change page; works without JavaScript. */
import type { AccountView } from './account-views.js';
import { html, type SafeHtml } from './html.js';
import { hidden, notice, renderDocument } from './page-shell.js';
import type { PageText } from './text/index.js';

export function renderAccountPage(view: AccountView, { action, text }: { action: string; text: PageText }): string {
  const t = text.account;
  const title = view.kind === 'change-password' ? t.title : view.kind === 'password-changed' ? t.doneTitle : text.messages[view.message].title;
  return renderDocument({ text, title, brand: t.brand, body: body(view, title, action, text) });
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
    case 'message':
      return html`<h1>${title}</h1>
<p role="alert">${'minutes' in view ? text.messages[view.message].text(view.minutes, view.until) : text.messages[view.message].text}</p>
<p><a href="${action}">${text.startAgain}</a></p>`;
  }
}
