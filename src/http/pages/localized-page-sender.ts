/**
 * Sends one of the account pages in the language the person asked for: `ui_locales` in the query
 * first (OpenID Connect Core §3.1.2.1), then Accept-Language, else English. A page shown because of
 * `ui_locales` posts its form back with the same `ui_locales`, so the answer stays in that language.
 */
import type { Context } from 'koa';
import { choosePageText, pageLanguageTags, type PageText } from '../../pages/text/index.js';

export type ChosenPageText = ReturnType<typeof choosePageText>;

export interface LocalizedPageSender<View> {
  /** The language this request asks for, for a page that needs the text before it sends (a mail). */
  choose(ctx: Context): ChosenPageText;
  /** Renders the view with the page's headers and Content-Language; `chosen` defaults to `choose(ctx)`. */
  send(ctx: Context, status: number, view: View, chosen?: ChosenPageText): void;
}

export function createLocalizedPageSender<View>(options: {
  /** The page's own path, the form's action. */
  action: string;
  headers: Record<string, string>;
  render(view: View, page: { action: string; text: PageText }): string;
}): LocalizedPageSender<View> {
  const { action, headers, render } = options;
  const actionFor = new Map(pageLanguageTags.map((tag) => [tag, `${action}?ui_locales=${encodeURIComponent(tag)}`]));

  function choose(ctx: Context): ChosenPageText {
    const uiLocales = new URLSearchParams(ctx.querystring).get('ui_locales') ?? undefined;
    return choosePageText(uiLocales, ctx.get('accept-language') || undefined);
  }

  return {
    choose,
    send(ctx, status, view, chosen = choose(ctx)) {
      ctx.status = status;
      ctx.set(headers);
      ctx.set({ 'Content-Language': chosen.value.lang, Vary: 'Accept-Language' });
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = render(view, { action: chosen.from === 'ui_locales' ? actionFor.get(chosen.tag)! : action, text: chosen.value });
    },
  };
}
