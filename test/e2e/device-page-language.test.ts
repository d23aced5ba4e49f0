/**
 * The device page speaks the reader's language: `ui_locales` (OIDC Core §3.1.2.1) on the link,
 * then the browser's Accept-Language, else English; `<html lang>` and Content-Language follow,
 * and a language chosen by ui_locales survives the page's own forms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { alice, codesFor, deviceConfig, hiddenFields, manualClock, PageClient } from '../device/helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await deviceConfig({ deviceFlow: { maxFailedAttempts: 1000 } }), { clock: manualClock() });
});
afterAll(() => server.close());

async function open(path: string, acceptLanguage?: string) {
  const res = await fetch(new URL(path, server.url), { headers: acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage } });
  return { status: res.status, html: await res.text(), headers: res.headers };
}

const actionOf = (html: string) => /<form method="post" action="([^"]*)"/.exec(html)?.[1];

describe('choosing the language', () => {
  it('is English by default', async () => {
    const res = await open('/device');
    expect(res.html).toContain('<html lang="en">');
    expect(res.html).toContain('<h1>Connect a device</h1>');
    expect(res.headers.get('content-language')).toBe('en');
    expect(actionOf(res.html)).toBe('/device');
  });

  it('follows Accept-Language by q-value', async () => {
    const res = await open('/device', 'fr;q=0.9, de-DE;q=0.8, en;q=0.5');
    expect(res.html).toContain('<html lang="de">');
    expect(res.html).toContain('<title>Gerät verbinden</title>');
    expect(res.html).toContain('<h1>Gerät verbinden</h1>');
    expect(res.html).toContain('<label for="user_code">Code</label>');
    expect(res.html).toContain('<button type="submit">Weiter</button>');
    expect(res.headers.get('content-language')).toBe('de');
    expect(res.headers.get('vary')).toBe('Accept-Language');
    // The browser sends the header again: nothing to carry.
    expect(actionOf(res.html)).toBe('/device');
  });

  it('skips a language the browser refuses with q=0', async () => {
    expect((await open('/device', 'de;q=0, en;q=0.1')).html).toContain('<html lang="en">');
  });

  it('lets ui_locales on the link win over Accept-Language, and carries it on the form', async () => {
    const res = await open('/device?ui_locales=fr%20de&user_code=BCDF-GHJK', 'en');
    expect(res.html).toContain('<html lang="de">');
    expect(res.html).toContain('value="BCDF-GHJK"');
    expect(actionOf(res.html)).toBe('/device?ui_locales=de');
    expect((await open('/device?ui_locales=en', 'de')).html).toContain('<html lang="en">');
  });

  it('carries only a supported tag, never the text of ui_locales', async () => {
    const res = await open('/device?ui_locales=%22%3E%3Cscript%3E%20de');
    expect(actionOf(res.html)).toBe('/device?ui_locales=de');
    expect(res.html).not.toContain('<script>');
  });
});

describe('in German through the whole flow', () => {
  it('words notices, sign-in and consent in German, standard scopes included', async () => {
    const codes = await codesFor(server, { client_id: 'tv', scope: 'openid offline_access api1.read' });
    const page = new PageClient(server.url);
    const entry = await page.get(`/device?ui_locales=de`);
    const action = actionOf(entry.html)!;

    const wrong = await page.post({ ...hiddenFields(entry.html)[0], user_code: 'BBBB-BBBB' }, action);
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('<html lang="de">');
    expect(wrong.html).toContain('<p class="notice" role="alert">Dieser Code ist ungültig. Prüfen Sie den Code auf Ihrem Gerät und versuchen Sie es erneut.</p>');

    const signIn = await page.post({ ...hiddenFields(wrong.html)[0], user_code: codes.user_code }, action);
    expect(signIn.html).toContain('<strong>Living room TV</strong> möchte sich mit Ihrem Konto verbinden.');
    expect(signIn.html).toContain('<label for="username">Benutzername</label>');
    expect(actionOf(signIn.html)).toBe('/device?ui_locales=de');

    const badPassword = await page.post({ ...hiddenFields(signIn.html)[0], username: alice.username, password: 'nope' }, action);
    expect(badPassword.html).toContain('Benutzername oder Passwort ist falsch.');

    const consent = await page.post({ ...hiddenFields(badPassword.html)[0], username: alice.username, password: alice.password }, action);
    expect(consent.html).toContain('<h1>Zugriff erlauben?</h1>');
    expect(consent.html).toContain('<li>Wissen, wer Sie sind (Ihre Benutzer-ID)<span class="scope-name">openid</span></li>');
    expect(consent.html).toContain('<span class="scope-name">offline_access</span>');
    // A configured description is the operator's, shown as configured.
    expect(consent.html).toContain('<li>Read your data in API 1<span class="scope-name">api1.read</span></li>');

    const done = await page.post({ ...hiddenFields(consent.html)[0], decision: 'approve' }, action);
    expect(done.html).toContain('<h1>Gerät verbunden</h1>');
  });

  it('answers a forged form in German', async () => {
    const res = await new PageClient(server.url).post({ step: 'code', csrf: 'forged', user_code: 'BCDF-GHJK' }, '/device?ui_locales=de');
    expect(res.status).toBe(403);
    expect(res.html).toContain('<h1>Bitte neu beginnen</h1>');
    expect(res.html).toContain('<a href="/device?ui_locales=de">Neu beginnen</a>');
  });
});
