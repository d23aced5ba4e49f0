/**
 * The sign-in, consent and logout pages speak the reader's language from the device page's text
 * catalogue: `ui_locales` on the request (kept with the pending request, so the forms that
 * follow stay in it, pushed requests too) wins over `Accept-Language`; English otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, postForm, startServer, type TestServer } from '../support/server.js';
import { alice, authorizeUrl, Browser, signInAndAuthorize, signInConfig, webRequest } from '../support/sign-in.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer(await signInConfig());
});
afterAll(() => server.close());

const german = { 'accept-language': 'de-CH, en;q=0.5' };

async function getWith(browser: Browser, url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers: { ...headers, cookie: [...browser.cookies].map(([n, v]) => `${n}=${v}`).join('; ') }, redirect: 'manual' });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

describe('the sign-in pages in German', () => {
  it('ui_locales=de: the sign-in page, and a wrong password on it, in German', async () => {
    const browser = new Browser(server.url);
    const page = await browser.get(authorizeUrl(server, webRequest({ ui_locales: 'fr de' }).params));
    expect(page.status).toBe(200);
    expect(page.html).toContain('<html lang="de">');
    expect(page.headers.get('content-language')).toBe('de');
    expect(page.html).toContain('<title>Anmelden</title>');
    expect(page.html).toContain('<p class="brand">Anmeldung</p>');
    expect(page.html).toContain('<p>Melden Sie sich an, um mit <strong>Demo web app</strong> fortzufahren.</p>');
    expect(page.html).toContain('<label for="username">Benutzername</label>');
    expect(page.html).toContain('<label for="password">Passwort</label>');
    expect(page.html).toContain('<button type="submit">Anmelden</button>');
    const wrong = await browser.submit(page, { username: alice.username, password: 'wrong' });
    expect(wrong.html).toContain('<p class="notice" role="alert">Benutzername oder Passwort ist falsch.</p>');
    expect(wrong.headers.get('content-language')).toBe('de');
  });

  it('Accept-Language: the consent page in German, standard scopes described in German', async () => {
    const browser = new Browser(server.url);
    const { params } = webRequest({ scope: 'openid profile' }, 'spa', 'http://127.0.0.1/spa/callback');
    const signIn = await getWith(browser, authorizeUrl(server, params), german);
    expect(signIn.html).toContain('<html lang="de">');
    // The cookie the sign-in page set, then the form posted as a German browser would.
    for (const line of signIn.headers.getSetCookie()) browser.cookies.set(line.split('=')[0]!, line.split(';')[0]!.split('=').slice(1).join('='));
    const fields = Object.fromEntries([...signIn.html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(([, n, v]) => [n!, v!]));
    const res = await fetch(`${server.url}/connect/authorize/sign-in`, {
      method: 'POST', redirect: 'manual',
      headers: { ...german, 'content-type': 'application/x-www-form-urlencoded', cookie: [...browser.cookies].map(([n, v]) => `${n}=${v}`).join('; ') },
      body: new URLSearchParams({ ...fields, username: alice.username, password: alice.password }),
    });
    const consent = await res.text();
    expect(res.headers.get('content-language')).toBe('de');
    expect(consent).toContain('<h1>Zugriff erlauben?</h1>');
    expect(consent).toContain('<p><strong>Demo SPA</strong> bittet um Zugriff auf Ihr Konto.</p>');
    expect(consent).toContain('<h2>Die Anwendung darf dann:</h2>');
    expect(consent).toContain('<li>Wissen, wer Sie sind (Ihre Benutzer-ID)<span class="scope-name">openid</span></li>');
    expect(consent).toContain('<li>Your name<span class="scope-name">profile</span></li>');
    expect(consent).toContain('<button type="submit" name="decision" value="approve">Erlauben</button>');
    expect(consent).toContain('<button type="submit" class="secondary" name="decision" value="deny">Ablehnen</button>');
    expect(consent).toContain('Angemeldet als <strong>alice</strong>.');
  });

  it('the logout confirmation, its answer and an untrusted request\'s error page', async () => {
    const browser = new Browser(server.url);
    await signInAndAuthorize(server, browser, webRequest().params);
    const confirm = await browser.get('/connect/endsession?ui_locales=de');
    expect(confirm.html).toContain('<h1>Abmelden?</h1>');
    expect(confirm.html).toContain('<p class="brand">Abmeldung</p>');
    expect(confirm.html).toContain('<button type="submit" class="secondary" name="decision" value="deny">Angemeldet bleiben</button>');
    const stay = await browser.submit(confirm, { decision: 'deny' });
    expect(stay.html).toContain('<h1>Sie sind weiterhin angemeldet</h1>');

    const unknown = await browser.get(authorizeUrl(server, { ...webRequest().params, client_id: 'nobody', ui_locales: 'de' }));
    expect(unknown.status).toBe(400);
    expect(unknown.html).toContain('<h1>Dieser Anmeldelink ist ungültig</h1>');
    expect(unknown.html).toContain('Die Anwendung, die Sie hierher geschickt hat, ist nicht bekannt, oder die Adresse, zu der sie Sie zurückschicken will, ist für sie nicht registriert.');
  });

  it('a pushed request\'s ui_locales chooses the language of its sign-in page', async () => {
    const { params } = webRequest({ ui_locales: 'de' });
    const pushed = await postForm(`${server.url}/connect/par`, params, { authorization: basic('web', 'web-secret') });
    expect(pushed.status).toBe(201);
    const page = await new Browser(server.url).get(authorizeUrl(server, { client_id: 'web', request_uri: pushed.body.request_uri as string }));
    expect(page.html).toContain('<html lang="de">');
    expect(page.html).toContain('<label for="username">Benutzername</label>');
  });

  it('English without either', async () => {
    const page = await new Browser(server.url).get(authorizeUrl(server, webRequest().params));
    expect(page.html).toContain('<html lang="en">');
    expect(page.html).toContain('<p>Sign in to continue to <strong>Demo web app</strong>.</p>');
  });
});
