/** German (Deutsch), formal address (Sie). */
import { html } from '../html.js';
import type { PageText } from './page-text.js';

export const de: PageText = {
  upstream: {
    signInWith: (provider) => html`Mit ${provider} anmelden`,
    orPassword: 'oder mit Benutzername und Passwort',
    failed: {
      cancelled: (p) => `Die Anmeldung mit ${p} wurde abgebrochen.`,
      refused: (p) => `${p} hat die Anmeldung abgelehnt.`,
      unavailable: (p) => `${p} hat nicht geantwortet. Versuchen Sie es gleich noch einmal.`,
      'invalid-answer': (p) => `Die Antwort von ${p} konnte nicht geprüft werden, Sie wurden nicht angemeldet.`,
      'not-allowed': (p) => `Ihr ${p}-Konto darf sich hier nicht anmelden.`,
    },
    failedWith: (p, message) => `Die Anmeldung mit ${p} ist fehlgeschlagen: ${message}`,
    tryAgain: 'Sie können es noch einmal versuchen oder eine andere Anmeldung wählen.',
  },
  lang: 'de',
  brand: 'Geräte-Anmeldung',
  enterCode: {
    title: 'Gerät verbinden',
    intro: 'Geben Sie den Code ein, der auf Ihrem Gerät angezeigt wird.',
    label: 'Code',
    submit: 'Weiter',
  },
  signIn: {
    title: 'Anmelden',
    intro: (client) => html`<strong>${client}</strong> möchte sich mit Ihrem Konto verbinden. Melden Sie sich an, um fortzufahren.`,
    username: 'Benutzername',
    password: 'Passwort',
    submit: 'Anmelden',
    code: 'Code:',
  },
  consent: {
    title: 'Zugriff erlauben?',
    intro: (client) => html`<strong>${client}</strong> bittet um Zugriff auf Ihr Konto.`,
    checkCode: 'Prüfen Sie, ob Ihr Gerät diesen Code anzeigt:',
    scopesHeading: 'Die Anwendung darf dann:',
    resourcesHeading: 'Nur bei diesen Diensten:',
    approve: 'Erlauben',
    deny: 'Ablehnen',
    signedInAs: (username) => html`Angemeldet als <strong>${username}</strong>.`,
    signOut: 'Nicht Sie? Abmelden',
  },
  done: {
    approvedTitle: 'Gerät verbunden',
    approved: (client) => html`<strong>${client}</strong> kann jetzt Ihr Konto verwenden. Sie können zu Ihrem Gerät zurückkehren.`,
    deniedTitle: 'Anfrage abgelehnt',
    denied: (client) => html`<strong>${client}</strong> hat keinen Zugriff erhalten. Sie können diese Seite schließen.`,
  },
  startAgain: 'Neu beginnen',
  notices: {
    'code-missing': 'Geben Sie den Code ein, der auf Ihrem Gerät angezeigt wird.',
    'code-unknown': 'Dieser Code ist ungültig. Prüfen Sie den Code auf Ihrem Gerät und versuchen Sie es erneut.',
    'code-expired': 'Dieser Code ist abgelaufen. Beginnen Sie auf Ihrem Gerät neu, um einen neuen Code zu erhalten.',
    'code-used': 'Dieser Code wurde bereits verwendet. Beginnen Sie auf Ihrem Gerät neu, wenn Sie einen neuen Code brauchen.',
    'credentials-missing': 'Geben Sie Ihren Benutzernamen und Ihr Passwort ein.',
    'credentials-wrong': 'Benutzername oder Passwort ist falsch.',
    'sign-in-required': 'Melden Sie sich an, um fortzufahren.',
  },
  messages: {
    'too-many-attempts': {
      title: 'Zu viele Versuche',
      text: (minutes, until) =>
        `Aus Ihrem Netzwerk wurden zu viele falsche Codes eingegeben. Versuchen Sie es in ${minutes} ${minutes === 1 ? 'Minute' : 'Minuten'} erneut (nach ${until} Uhr UTC).`,
    },
    'too-many-sign-ins': {
      title: 'Zu viele Versuche',
      text: (minutes, until) =>
        `Zu viele fehlgeschlagene Anmeldungen für dieses Konto oder aus Ihrem Netzwerk. Versuchen Sie es in ${minutes} ${minutes === 1 ? 'Minute' : 'Minuten'} erneut (nach ${until} Uhr UTC).`,
    },
    'form-expired': {
      title: 'Bitte neu beginnen',
      text: 'Dieses Formular ist abgelaufen oder stammt nicht von dieser Seite. Öffnen Sie die Seite erneut und versuchen Sie es noch einmal.',
    },
    'form-unreadable': { title: 'Bitte neu beginnen', text: 'Das Formular konnte nicht gelesen werden.' },
    'cookies-conflict': { title: 'Bitte neu beginnen', text: 'Ihr Browser hat mehr als ein Anmelde-Cookie für diese Seite gesendet, daher ist unklar, wer angemeldet ist. Löschen Sie die Cookies dieser Seite in Ihrem Browser und beginnen Sie neu.' },
    unavailable: { title: 'Vorübergehend nicht verfügbar', text: 'Der Dienst ist vorübergehend nicht verfügbar. Versuchen Sie es gleich noch einmal.' },
    failed: { title: 'Etwas ist schiefgelaufen', text: 'Bei uns ist etwas schiefgelaufen. Versuchen Sie es gleich noch einmal.' },
  },
  scopes: {
    openid: 'Wissen, wer Sie sind (Ihre Benutzer-ID)',
    profile: 'Ihr Profil sehen: Name, Benutzername, Bild, Geburtsdatum, Sprache',
    email: 'Ihre E-Mail-Adresse sehen',
    address: 'Ihre Postanschrift sehen',
    phone: 'Ihre Telefonnummer sehen',
    offline_access: 'Zugriff behalten, auch wenn Sie die Anwendung gerade nicht nutzen',
  },
  legal: { privacyPolicy: 'Datenschutz', terms: 'Nutzungsbedingungen' },
  authorize: {
    brand: 'Anmeldung',
    signOutBrand: 'Abmeldung',
    signInIntro: (client) => html`Melden Sie sich an, um mit <strong>${client}</strong> fortzufahren.`,
    unverifiedClient: (client) => html`<strong>${client}</strong> hat sich selbst bei diesem Dienst registriert. Der Betreiber hat nicht geprüft, wer dahintersteht. Stimmen Sie nur zu, wenn Sie dem Ziel vertrauen, zu dem Sie weitergeleitet werden.`,
    returnsTo: (target) => html`Nach dieser Seite werden Sie zu <strong class="redirect-target">${target}</strong> weitergeleitet.`,
    logout: { title: 'Abmelden?', question: 'Möchten Sie sich von diesem Dienst abmelden?', confirm: 'Abmelden', stay: 'Angemeldet bleiben' },
    continue: 'Weiter',
    notices: {
      'credentials-missing': 'Geben Sie Ihren Benutzernamen und Ihr Passwort ein.',
      'credentials-wrong': 'Benutzername oder Passwort ist falsch.',
      'too-many-sign-ins': 'Zu viele fehlgeschlagene Anmeldungen. Warten Sie einige Minuten und versuchen Sie es dann erneut.',
    },
    messages: {
      'request-malformed': { title: 'Dieser Anmeldelink ist ungültig', text: 'Die Anfrage ist fehlerhaft.' },
      'client-missing': { title: 'Dieser Anmeldelink ist ungültig', text: 'Die Anfrage nennt keine Anwendung.' },
      'client-unknown': { title: 'Dieser Anmeldelink ist ungültig', text: 'Die Anwendung, die Sie hierher geschickt hat, ist nicht bekannt, oder die Adresse, zu der sie Sie zurückschicken will, ist für sie nicht registriert.' },
      'redirect-uri-missing': { title: 'Dieser Anmeldelink ist ungültig', text: 'Die Anfrage nennt keine Rücksprungadresse.' },
      'link-used': { title: 'Dieser Anmeldelink ist ungültig', text: 'Dieser Anmeldelink ist abgelaufen oder wurde bereits verwendet. Kehren Sie zur Anwendung zurück und beginnen Sie neu.' },
      'request-unreadable': { title: 'Dieser Anmeldelink ist ungültig', text: 'Die Anfrage konnte nicht gelesen werden. Kehren Sie zur Anwendung zurück und beginnen Sie neu.' },
      'start-again': { title: 'Bitte neu beginnen', text: 'Diese Anmeldung ist abgelaufen oder wurde in einem anderen Browser geöffnet. Kehren Sie zur Anwendung zurück und beginnen Sie neu.' },
      'cookies-conflict': { title: 'Bitte neu beginnen', text: 'Ihr Browser hat mehr als ein Anmelde-Cookie für diese Seite gesendet, daher ist unklar, wer angemeldet ist. Löschen Sie die Cookies dieser Seite in Ihrem Browser und beginnen Sie neu.' },
      'external-sign-in-failed': { title: 'Anmeldung fehlgeschlagen', text: 'Die Anmeldung ist nicht gelungen. Kehren Sie zur Anwendung zurück und beginnen Sie neu.' },
      'sign-out-unreadable': { title: 'Abmeldung fehlgeschlagen', text: 'Die Abmeldeanfrage konnte nicht gelesen werden.' },
      'sign-out-invalid': { title: 'Abmeldung fehlgeschlagen', text: 'Die Abmeldeanfrage ist ungültig.' },
      'sign-out-redirect-unregistered': { title: 'Abmeldung fehlgeschlagen', text: 'Die Adresse für die Rückkehr nach der Abmeldung ist für diese Anwendung nicht registriert.' },
      'sign-out-expired': { title: 'Bitte neu beginnen', text: 'Diese Abmeldeseite ist abgelaufen. Kehren Sie zur Anwendung zurück und melden Sie sich erneut ab.' },
      'still-signed-in': { title: 'Sie sind weiterhin angemeldet', text: 'Sie können diese Seite schließen.' },
      'signed-out': { title: 'Sie sind abgemeldet', text: 'Sie können diese Seite schließen.' },
      unavailable: { title: 'Vorübergehend nicht verfügbar', text: 'Der Dienst ist vorübergehend nicht verfügbar. Versuchen Sie es gleich noch einmal.' },
      'too-many-requests': { title: 'Zu viele Anmeldungen begonnen', text: 'Von hier wurden zu viele Anmeldungen begonnen. Warten Sie eine Minute, kehren Sie dann zur Anwendung zurück und beginnen Sie neu.' },
      failed: { title: 'Etwas ist schiefgelaufen', text: 'Bei uns ist etwas schiefgelaufen. Versuchen Sie es gleich noch einmal.' },
    },
  },
  account: {
    brand: 'Ihr Konto',
    title: 'Passwort ändern',
    intro: 'Geben Sie Ihr aktuelles und Ihr neues Passwort ein.',
    current: 'Aktuelles Passwort',
    next: 'Neues Passwort',
    again: 'Neues Passwort wiederholen',
    submit: 'Passwort ändern',
    doneTitle: 'Passwort geändert',
    done: 'Ihr Passwort wurde geändert. Verwenden Sie ab jetzt das neue. Sie können diese Seite schließen.',
    notices: {
      'fields-missing': 'Füllen Sie jedes Feld aus.',
      'credentials-wrong': 'Der Benutzername oder das aktuelle Passwort ist falsch.',
      mismatch: 'Die beiden neuen Passwörter stimmen nicht überein.',
      'not-changeable': 'Das Passwort dieses Kontos kann hier nicht geändert werden. Wenden Sie sich an die Betreiber dieses Dienstes.',
      'same-password': 'Das neue Passwort ist das aktuelle. Wählen Sie ein anderes.',
    },
    broken: (b) =>
      b.rule === 'too-short' ? `Das neue Passwort ist zu kurz: mindestens ${b.minLength} Zeichen.`
      : b.rule === 'too-long' ? `Das neue Passwort ist zu lang: höchstens ${b.maxLength} Zeichen.`
      : b.rule === 'username' ? 'Das neue Passwort darf nicht Ihr Benutzername sein.'
      : 'Das neue Passwort ist zu verbreitet. Wählen Sie ein anderes.',
  },
};
