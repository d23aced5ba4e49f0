/**
 * What each template a deployment may replace (`pages.templates`) can use: the names here are
 * checked when the template is parsed at start-up, and are the README's table ("Branding the
 * pages"). The values are built beside the built-in templates (`sign-in-templates.ts`,
 * `device-templates.ts`, `page-shell.ts`) from the same views and words.
 */
import type { PageTemplateName } from '../config/branding.js';
import type { TemplateNames } from './page-template.js';

/** On every page's body template. */
const common = ['lang', 'productName', 'title'] as const;

export const templateNames: Readonly<Record<PageTemplateName, TemplateNames>> = {
  layout: {
    values: ['lang', 'title', 'head', 'brand', 'body', 'footer', 'productName', 'logoUrl', 'privacyPolicyUrl', 'privacyPolicyLabel', 'termsUrl', 'termsLabel'],
  },
  signIn: {
    values: [...common, 'intro', 'notice', 'action', 'hiddenFields', 'username', 'usernameLabel', 'passwordLabel', 'submitLabel', 'clientName', 'userCode', 'codeLabel'],
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
