/**
 * The words for a scope on a consent page, in the reader's language: the configured
 * description (one string for every language, or the reader's of several), else the page's
 * own for a standard OpenID scope, else the configured one in English or any language. Only a
 * scope with no description anywhere shows its bare name.
 */
import type { LocalizedText } from '../sdk/model.js';
import type { ScopeLine } from './device-views.js';
import type { PageText } from './text/index.js';

function inLanguage(text: Readonly<Record<string, string>>, lang: string): string | undefined {
  const wanted = lang.toLowerCase();
  const primary = wanted.split('-', 1)[0]!;
  const entries = Object.entries(text).map(([tag, value]) => [tag.toLowerCase(), value] as const);
  return entries.find(([tag]) => tag === wanted)?.[1] ?? entries.find(([tag]) => tag === primary || tag.split('-', 1)[0] === primary)?.[1];
}

export function describeScope(scope: ScopeLine, text: PageText): string | undefined {
  const configured: LocalizedText | undefined = scope.description;
  if (typeof configured === 'string') return configured;
  const own = configured === undefined ? undefined : inLanguage(configured, text.lang);
  if (own !== undefined) return own;
  const standard = text.scopes[scope.name];
  if (standard !== undefined) return standard;
  return configured === undefined ? undefined : (inLanguage(configured, 'en') ?? Object.values(configured)[0]);
}
