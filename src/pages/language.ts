/**
 * Chooses the language of a page: OIDC Core §3.1.2.1 `ui_locales` (space-separated BCP 47 tags,
 * most preferred first) wins, then the browser's `Accept-Language` (RFC 9110 §12.5.4, by
 * q-value; `q=0` means "not this one"), else the default. A tag matches a language exactly or by
 * its primary subtag (`de-CH` → `de`), case-insensitively (RFC 5646 §2.1.1).
 */

export type LanguageSource = 'ui_locales' | 'accept-language' | 'default';

export interface ChosenLanguage<T> {
  readonly value: T;
  /** The supported tag chosen, e.g. `de`: never the caller's text. */
  readonly tag: string;
  readonly from: LanguageSource;
}

const tagPattern = /^[a-z]{1,8}(?:-[a-z0-9]{1,8})*$/;
const qPattern = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;
// Headers and query strings are capped elsewhere; this bounds the work on one anyway.
const maxTags = 32;

/** Built once per page at start-up: `languages` maps lower-case tags to what each language shows. */
export function createLanguageChooser<T>(languages: ReadonlyMap<string, T>, defaultTag: string) {
  const fallback = languages.get(defaultTag);
  if (fallback === undefined) throw new Error(`default language "${defaultTag}" is not among ${[...languages.keys()].join(', ')}`);

  function match(tag: string): string | undefined {
    if (languages.has(tag)) return tag;
    const primary = tag.split('-', 1)[0]!;
    return languages.has(primary) ? primary : undefined;
  }

  function fromUiLocales(value: string): string | undefined {
    for (const tag of value.toLowerCase().split(/\s+/).slice(0, maxTags)) {
      if (!tagPattern.test(tag)) continue;
      const found = match(tag);
      if (found) return found;
    }
    return undefined;
  }

  function fromAcceptLanguage(value: string): string | undefined {
    const ranked: Array<{ tag: string; q: number }> = [];
    for (const part of value.toLowerCase().split(',').slice(0, maxTags)) {
      const [range = '', ...params] = part.split(';').map((s) => s.trim());
      if (range !== '*' && !tagPattern.test(range)) continue;
      const qParam = params.find((p) => p.startsWith('q='));
      const q = qParam === undefined ? 1 : qPattern.test(qParam) ? Number(qParam.slice(2)) : undefined;
      if (q === undefined || q === 0) continue;
      ranked.push({ tag: range, q });
    }
    // Array.prototype.sort is stable: equal q-values keep the header's order.
    for (const { tag } of ranked.sort((a, b) => b.q - a.q)) {
      if (tag === '*') return defaultTag;
      const found = match(tag);
      if (found) return found;
    }
    return undefined;
  }

  return function chooseLanguage(uiLocales: string | undefined, acceptLanguage: string | undefined): ChosenLanguage<T> {
    const fromUi = uiLocales === undefined ? undefined : fromUiLocales(uiLocales);
    if (fromUi !== undefined) return { value: languages.get(fromUi)!, tag: fromUi, from: 'ui_locales' };
    const fromHeader = acceptLanguage === undefined ? undefined : fromAcceptLanguage(acceptLanguage);
    if (fromHeader !== undefined) return { value: languages.get(fromHeader)!, tag: fromHeader, from: 'accept-language' };
    return { value: fallback, tag: defaultTag, from: 'default' };
  };
}
