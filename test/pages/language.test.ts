/** Choosing a page's language: ui_locales (OIDC Core §3.1.2.1), then Accept-Language (RFC 9110 §12.5.4), then the default. */
import { describe, expect, it } from 'vitest';
import { createLanguageChooser } from '../../src/pages/language.js';

const choose = createLanguageChooser(new Map([['en', 'English'], ['de', 'Deutsch']]), 'en');
const pick = (ui: string | undefined, accept: string | undefined) => {
  const { tag, from } = choose(ui, accept);
  return `${tag} from ${from}`;
};

describe('ui_locales', () => {
  it('takes the first tag the page speaks, by primary subtag too, case-insensitively', () => {
    expect(pick('de', undefined)).toBe('de from ui_locales');
    expect(pick('fr-CA DE-ch en', undefined)).toBe('de from ui_locales');
    expect(pick('  fr   de ', undefined)).toBe('de from ui_locales');
  });

  it('wins over Accept-Language', () => {
    expect(pick('de', 'en')).toBe('de from ui_locales');
    expect(pick('en', 'de')).toBe('en from ui_locales');
  });

  it('falls through to Accept-Language when it names nothing the page speaks, or nothing well-formed', () => {
    expect(pick('fr ja', 'de')).toBe('de from accept-language');
    expect(pick('<script> de_DE', 'de')).toBe('de from accept-language');
    expect(pick('', undefined)).toBe('en from default');
  });
});

describe('Accept-Language', () => {
  it('orders by q-value, keeping the header order for equal values', () => {
    expect(pick(undefined, 'fr;q=0.9, de;q=0.8, en;q=0.7')).toBe('de from accept-language');
    expect(pick(undefined, 'en;q=0.5, de')).toBe('de from accept-language');
    expect(pick(undefined, 'de-AT, en')).toBe('de from accept-language');
    expect(pick(undefined, 'en-GB,de;q=1')).toBe('en from accept-language');
  });

  it('skips q=0 ("not this one") and malformed entries', () => {
    expect(pick(undefined, 'de;q=0, en;q=0.1')).toBe('en from accept-language');
    expect(pick(undefined, 'de;q=2, de;q=abc, en;q=0.2')).toBe('en from accept-language');
    expect(pick(undefined, 'de;q=0')).toBe('en from default');
  });

  it('treats * as any language: the default', () => {
    expect(pick(undefined, 'fr, *;q=0.5, de;q=0.1')).toBe('en from accept-language');
  });

  it('defaults to English without a usable header', () => {
    expect(pick(undefined, undefined)).toBe('en from default');
    expect(pick(undefined, 'fr, ja')).toBe('en from default');
    expect(pick(undefined, ',,;;')).toBe('en from default');
  });
});

it('refuses a default language it does not have', () => {
  expect(() => createLanguageChooser(new Map([['de', 'Deutsch']]), 'en')).toThrow('default language "en" is not among de');
});
