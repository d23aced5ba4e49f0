/** English, the default. */
import { html } from '../html.js';
import type { PageText } from './page-text.js';

export const en: PageText = {
  upstream: {
    signInWith: (provider) => html`Sign in with ${provider}`,
    orPassword: 'or with your username and password',
    failed: {
      cancelled: (p) => `The sign-in with ${p} was cancelled.`,
      refused: (p) => `${p} refused the sign-in.`,
      unavailable: (p) => `${p} did not answer. Try again in a moment.`,
      'invalid-answer': (p) => `The answer from ${p} could not be verified, so you were not signed in.`,
      'not-allowed': (p) => `Your ${p} account may not sign in here.`,
    },
    failedWith: (p, message) => `Sign-in with ${p} failed: ${message}`,
    tryAgain: 'You can try again, or choose another way to sign in.',
  },
  lang: 'en',
  brand: 'Device sign-in',
  enterCode: { title: 'Connect a device', intro: 'Enter the code shown on your device.', label: 'Code', submit: 'Continue' },
  signIn: {
    title: 'Sign in',
    intro: (client) => html`<strong>${client}</strong> wants to connect to your account. Sign in to continue.`,
    username: 'Username',
    password: 'Password',
    submit: 'Sign in',
    code: 'Code:',
  },
  consent: {
    title: 'Allow access?',
    intro: (client) => html`<strong>${client}</strong> is asking for access to your account.`,
    checkCode: 'Check that your device shows this code:',
    scopesHeading: 'It will be able to:',
    resourcesHeading: 'Only at these services:',
    approve: 'Approve',
    deny: 'Deny',
    signedInAs: (username) => html`Signed in as <strong>${username}</strong>.`,
    signOut: 'Not you? Sign out',
  },
  done: {
    approvedTitle: 'Device connected',
    approved: (client) => html`<strong>${client}</strong> can now use your account. You can return to your device.`,
    deniedTitle: 'Request denied',
    denied: (client) => html`<strong>${client}</strong> was not given access. You can close this page.`,
  },
  startAgain: 'Start again',
  notices: {
    'code-missing': 'Enter the code shown on your device.',
    'code-unknown': 'That code is not valid. Check the code shown on your device and try again.',
    'code-expired': 'That code has expired. Start again on your device to get a new code.',
    'code-used': 'That code has already been used. Start again on your device if you need a new code.',
    'credentials-missing': 'Enter your username and password.',
    'credentials-wrong': 'The username or password is incorrect.',
    'sign-in-required': 'Sign in to continue.',
  },
  messages: {
    'too-many-attempts': {
      title: 'Too many attempts',
      text: (minutes, until) =>
        `Too many wrong codes were entered from your network. Try again in ${minutes} minute${minutes === 1 ? '' : 's'} (after ${until} UTC).`,
    },
    // The same words whether the account exists or not: the page reveals no usernames.
    'too-many-sign-ins': {
      title: 'Too many attempts',
      text: (minutes, until) =>
        `Too many failed sign-ins for this account or from your network. Try again in ${minutes} minute${minutes === 1 ? '' : 's'} (after ${until} UTC).`,
    },
    'form-expired': {
      title: 'Please start again',
      text: 'This form has expired or did not come from this page. Open the page again and retry.',
    },
    'form-unreadable': { title: 'Please start again', text: 'The form could not be read.' },
    'cookies-conflict': { title: 'Please start again', text: 'Your browser sent more than one sign-in cookie for this site, so it is not clear who is signed in. Delete this site\'s cookies in your browser and start again.' },
    unavailable: { title: 'Temporarily unavailable', text: 'The service is temporarily unavailable. Try again in a moment.' },
    failed: { title: 'Something went wrong', text: 'Something went wrong on our side. Try again in a moment.' },
  },
  scopes: {
    openid: 'Know who you are (your user id)',
    profile: 'See your profile: name, username, picture, birthdate, locale',
    email: 'See your e-mail address',
    address: 'See your postal address',
    phone: 'See your phone number',
    offline_access: 'Keep access when you are not using it',
  },
  legal: { privacyPolicy: 'Privacy policy', terms: 'Terms of use' },
  authorize: {
    brand: 'Sign in',
    signOutBrand: 'Sign out',
    signInIntro: (client) => html`Sign in to continue to <strong>${client}</strong>.`,
    unverifiedClient: (client) => html`<strong>${client}</strong> registered itself with this service. The operator has not verified who runs it. Approve only if you trust where it sends you.`,
    returnsTo: (target) => html`After this page you will be sent to <strong class="redirect-target">${target}</strong>.`,
    logout: { title: 'Sign out?', question: 'Do you want to sign out of this service?', confirm: 'Sign out', stay: 'Stay signed in' },
    continue: 'Continue',
    reference: (id) => html`If you contact the people who run this service, quote this reference: <code>${id}</code>`,
    startPage: 'Go to the start page of this service',
    notices: {
      'credentials-missing': 'Enter your username and password.',
      'credentials-wrong': 'The username or password is incorrect.',
      'too-many-sign-ins': 'Too many failed sign-ins. Wait a few minutes and try again.',
    },
    messages: {
      'request-malformed': { title: 'This sign-in link is not valid', text: 'The request is malformed.' },
      'client-missing': { title: 'This sign-in link is not valid', text: 'The request names no client.' },
      'client-unknown': { title: 'This sign-in link is not valid', text: 'The application that sent you here is not known, or the address it wants to send you back to is not registered for it.' },
      'redirect-uri-missing': { title: 'This sign-in link is not valid', text: 'The request names no redirect URI.' },
      'link-used': { title: 'This sign-in link is not valid', text: 'This sign-in link has expired or was already used. Go back to the application and start again.' },
      'client-document-unusable': { title: 'This sign-in link is not valid', text: 'The application that sent you here names itself by a web address, and the description of the application found there could not be fetched or is not valid. Its developer has to fix it.' },
      'request-unreadable': { title: 'This sign-in link is not valid', text: 'The request could not be read. Go back to the application and start again.' },
      'start-again': { title: 'Please start again', text: 'This sign-in has expired or was opened in another browser. Go back to the application and start again.' },
      'cookies-conflict': { title: 'Please start again', text: 'Your browser sent more than one sign-in cookie for this site, so it is not clear who is signed in. Delete this site\'s cookies in your browser and start again.' },
      'external-sign-in-failed': { title: 'Sign-in failed', text: 'The sign-in did not succeed. Go back to the application and start again.' },
      'sign-out-unreadable': { title: 'Sign-out failed', text: 'The sign-out request could not be read.' },
      'sign-out-invalid': { title: 'Sign-out failed', text: 'The sign-out request is not valid.' },
      'sign-out-redirect-unregistered': { title: 'Sign-out failed', text: 'The address to return to after sign-out is not registered for this application.' },
      'sign-out-expired': { title: 'Please start again', text: 'This sign-out page has expired. Go back to the application and sign out again.' },
      'still-signed-in': { title: 'You are still signed in', text: 'You can close this page.' },
      'signed-out': { title: 'You are signed out', text: 'You can close this page.' },
      unavailable: { title: 'Temporarily unavailable', text: 'The service is temporarily unavailable. Try again in a moment.' },
      'too-many-requests': { title: 'Too many sign-ins started', text: 'Too many sign-ins were started from here. Wait a minute, then go back to the application and start again.' },
      failed: { title: 'Something went wrong', text: 'Something went wrong on our side. Try again in a moment.' },
    },
  },
  account: {
    brand: 'Your account',
    title: 'Change your password',
    intro: 'Enter your current password and the new one.',
    current: 'Current password',
    next: 'New password',
    again: 'New password again',
    submit: 'Change password',
    doneTitle: 'Password changed',
    done: 'Your password has been changed. Use the new one from now on. You can close this page.',
    notices: {
      'fields-missing': 'Fill in every field.',
      'credentials-wrong': 'The username or current password is incorrect.',
      mismatch: 'The two new passwords differ.',
      'not-changeable': 'The password of this account cannot be changed here. Ask the people who run this service.',
      'same-password': 'The new password is the current one. Choose another.',
    },
    broken: (b) =>
      b.rule === 'too-short' ? `The new password is too short: use at least ${b.minLength} characters.`
      : b.rule === 'too-long' ? `The new password is too long: use at most ${b.maxLength} characters.`
      : b.rule === 'username' ? 'The new password may not be your username.'
      : 'The new password is too common. Choose another.',
  },
};
