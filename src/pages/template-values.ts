/**
 * What each template a deployment may replace (`pages.templates`) can use: the names here are
 * checked when the template is parsed at start-up, and are the table of docs/guides/signing-users-in.md ("Branding the
 * pages"). The values are built beside the built-in templates (`sign-in-templates.ts`,
 * `device-templates.ts`, `page-shell.ts`) from the same views and words.
 */
import type { PageTemplateName } from '../config/branding.js';
import type { TemplateNames } from './page-template.js';

/**
 * What a template must use, or the page would not work or would lose what it must keep: the
 * document's language (WCAG 3.1.1) and its content; a form's hidden fields (the CSRF token and
 * the request it continues).
 */
export const requiredNames: Readonly<Partial<Record<PageTemplateName, readonly string[]>>> = {
  layout: ['lang', 'body'],
  signIn: ['hiddenFields'],
  consent: ['hiddenFields'],
  logout: ['hiddenFields'],
  deviceCode: ['hiddenFields'],
};

/** On every page's body template. */
const common = ['lang', 'productName', 'title'] as const;

export const templateNames: Readonly<Record<PageTemplateName, TemplateNames>> = {
  layout: {
    values: ['lang', 'title', 'head', 'brand', 'body', 'footer', 'productName', 'logoUrl', 'privacyPolicyUrl', 'privacyPolicyLabel', 'termsUrl', 'termsLabel'],
  },
  signIn: {
    values: [...common, 'intro', 'notice', 'action', 'hiddenFields', 'username', 'usernameLabel', 'passwordLabel', 'submitLabel', 'clientName', 'userCode', 'codeLabel', 'forgotPasswordUrl', 'forgotPasswordLabel'],
  },
  consent: {
    values: [
      ...common, 'intro', 'clientName', 'warning', 'returnTo', 'userCode', 'checkCode', 'scopesHeading', 'action', 'hiddenFields',
      'approveLabel', 'denyLabel', 'signedInAs', 'signOutHiddenFields', 'signOutLabel',
    ],
    lists: { scopes: ['name', 'description'] },
  },
  logout: { values: [...common, 'question', 'action', 'hiddenFields', 'confirmLabel', 'stayLabel'] },
  message: { values: [...common, 'text', 'startAgainUrl', 'startAgainLabel'] },
  deviceCode: { values: [...common, 'intro', 'notice', 'action', 'hiddenFields', 'label', 'submitLabel', 'userCode', 'numeric'] },
  deviceDone: { values: [...common, 'text', 'approved', 'clientName'] },
};
