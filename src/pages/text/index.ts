/**
 * The languages of the device page. To add one: copy `en.ts` to `<tag>.ts`, translate it (the
 * compiler lists anything missing), and add it to `languages` below.
 */
import { createLanguageChooser } from '../language.js';
import { de } from './de.js';
import { en } from './en.js';
import type { PageText } from './page-text.js';

export type { PageText } from './page-text.js';

const languages: readonly PageText[] = [en, de];

/** The tags of the page's languages, lower-case. */
export const pageLanguageTags: readonly string[] = languages.map((t) => t.lang.toLowerCase());

/** `(ui_locales, Accept-Language)` → the page text; English when neither names a language the page has. */
export const choosePageText = createLanguageChooser(new Map(languages.map((t) => [t.lang.toLowerCase(), t])), 'en');
