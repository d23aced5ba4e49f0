/**
 * Seeds of the authorization endpoint (query and form POST, with and without a session, a PAR
 * `request_uri`) and of its pages: the sign-in, consent and logout forms as a browser posts them,
 * with the cookie, CSRF token and interaction of a page the case has just opened, and with the
 * CSRF token of another browser or step; end session (RP-Initiated Logout) with and without a
 * hint and a session. Also the races with client management: a form posted after its client was
 * deleted (RFC 7592) while the page was open.
 */
import { codeRedirect, postLogoutRedirect, spaRedirect } from './fixture.js';
import type { FuzzRequest } from './request.js';
import { basic, get, jsonRequest, post, seed, type Seed, type SeedContext } from './seed-kit.js';
import { SetupRefused, Visitor, type Probe } from './visitor.js';

/** A client registered for the case (RFC 7591), to be deleted while its page is open. */
export interface Registered {
  readonly clientId: string;
  readonly secret: string;
  readonly registrationToken: string;
  readonly uri: string;
}

export async function registerClient(ctx: SeedContext, probe: Probe, metadata: Record<string, unknown>): Promise<Registered> {
  const res = await probe(jsonRequest('setup', 'POST', ctx.s.paths.register, metadata, `Bearer ${ctx.fx.initialAccessToken}`));
  if (res.status !== 201) throw new SetupRefused(`registration answered ${res.status}: ${res.body.slice(0, 200)}`);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  return {
    clientId: String(body.client_id), secret: String(body.client_secret), registrationToken: String(body.registration_access_token),
    uri: new URL(String(body.registration_client_uri)).pathname,
  };
}

export const registeredCodeClient = { redirect_uris: [codeRedirect], grant_types: ['authorization_code'], scope: 'openid profile', client_name: 'Fuzz registered app' };

export async function deleteClient(ctx: SeedContext, probe: Probe, client: Registered): Promise<void> {
  const res = await probe({ seed: 'setup', method: 'DELETE', path: client.uri, headers: [['authorization', `Bearer ${client.registrationToken}`]] });
  if (res.status !== 204) throw new SetupRefused(`deleting the registered client answered ${res.status}`);
  void ctx;
}

export function pageSeeds(ctx: SeedContext): Seed[] {
  const { fx, s, pkce } = ctx;
  const { authorize, endSession, par } = s.paths;
  const request = (clientId: string, redirectUri: string, extra: Record<string, string> = {}): Record<string, string> => ({
    response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'openid profile api1.read', state: 'xyz', nonce: 'n-0S6',
    code_challenge: pkce.challenge, code_challenge_method: 'S256', ...extra,
  });
  const codeQuery = (extra: Record<string, string> = {}): string => new URLSearchParams(request('code', codeRedirect, extra)).toString();
  const spaQuery = (extra: Record<string, string> = {}): string => new URLSearchParams(request('spa', spaRedirect, extra)).toString();

  // One browser signed in for the whole run (signed in again if a case ended its session).
  let shared: Visitor | undefined;
  const sharedBrowser = (probe: Probe): Visitor => (shared ??= new Visitor(probe));

  /** A fresh browser on the sign-in page of `query`: its cookie and the form. */
  const atSignIn = async (probe: Probe, query = codeQuery()) => {
    const browser = new Visitor(probe);
    return { browser, page: Visitor.formOf(await browser.get(`${authorize}?${query}`), 'sign-in') };
  };
  /** The consent page for `query` (`prompt=consent`), in the shared browser, signing in first when asked. */
  const atConsent = async (probe: Probe, query = codeQuery({ prompt: 'consent' })) => {
    const browser = sharedBrowser(probe);
    const res = await browser.signInIfAsked(await browser.get(`${authorize}?${query}`), fx.user);
    return { browser, page: Visitor.formOf(res, 'consent') };
  };
  /** A fresh browser signed in (the public client's code flow, no consent). */
  const signedInBrowser = async (probe: Probe): Promise<Visitor> => {
    const browser = new Visitor(probe);
    const res = await browser.signInIfAsked(await browser.get(`${authorize}?${spaQuery()}`), fx.user);
    if (res.status !== 303) throw new SetupRefused(`expected the sign-in to end in a redirect, got ${res.status}`);
    return browser;
  };
  /** The logout confirmation page (RP-Initiated Logout §2) in a freshly signed-in browser. */
  const atLogout = async (probe: Probe) => {
    const browser = await signedInBrowser(probe);
    const query = new URLSearchParams({ client_id: 'code', post_logout_redirect_uri: postLogoutRedirect, state: 'bye' });
    return { browser, page: Visitor.formOf(await browser.get(`${endSession}?${query}`), 'logout') };
  };
  const signInFields = { username: fx.user.username, password: fx.user.password };
  const withCookie = (req: FuzzRequest, cookie: string): FuzzRequest => ({ ...req, headers: [...req.headers.filter(([n]) => n !== 'cookie'), ['cookie', cookie]] });

  return [
    // ---- the authorization endpoint
    seed('authorize', 'authorize: GET, no session', () => get('authorize: GET, no session', `${authorize}?${codeQuery()}`)),
    seed('authorize', 'authorize: form POST, no session', () => post('authorize: form POST, no session', authorize, [...new URLSearchParams(codeQuery())])),
    seed('authorize', 'authorize: GET with a session, prompt=none', async (probe) => {
      const browser = sharedBrowser(probe);
      await browser.signInIfAsked(await browser.get(`${authorize}?${spaQuery()}`), fx.user);
      return get('authorize: GET with a session, prompt=none', `${authorize}?${spaQuery({ prompt: 'none' })}`, [['cookie', browser.cookie]]);
    }),
    seed('authorize', 'authorize: form POST with a session, response_mode=form_post', async (probe) => {
      const browser = sharedBrowser(probe);
      await browser.signInIfAsked(await browser.get(`${authorize}?${spaQuery()}`), fx.user);
      return withCookie(post('authorize: form POST with a session, response_mode=form_post', authorize, [...new URLSearchParams(spaQuery({ response_mode: 'form_post', max_age: '3600' }))]), browser.cookie);
    }),
    seed('authorize', 'authorize: GET with a PAR request_uri', async (probe) => {
      const pushed = await probe(post('setup', par, [...new URLSearchParams(codeQuery())], basic('code', fx.clientSecrets.code)));
      if (pushed.status !== 201) throw new SetupRefused(`PAR answered ${pushed.status}`);
      const uri = String((JSON.parse(pushed.body) as Record<string, unknown>).request_uri);
      return get('authorize: GET with a PAR request_uri', `${authorize}?${new URLSearchParams({ client_id: 'code', request_uri: uri })}`);
    }),
    seed('authorize', 'authorize: PAR request_uri of a client deleted meanwhile', async (probe) => {
      const client = await registerClient(ctx, probe, registeredCodeClient);
      const pushed = await probe(post('setup', par, [...new URLSearchParams(request(client.clientId, codeRedirect, { scope: 'openid profile' }))], basic(client.clientId, client.secret)));
      if (pushed.status !== 201) throw new SetupRefused(`PAR answered ${pushed.status}`);
      await deleteClient(ctx, probe, client);
      const uri = String((JSON.parse(pushed.body) as Record<string, unknown>).request_uri);
      return get('authorize: PAR request_uri of a client deleted meanwhile', `${authorize}?${new URLSearchParams({ client_id: client.clientId, request_uri: uri })}`);
    }),
    seed('authorize', 'authorize: PAR request_uri while its client is being deleted (a race)', async (probe) => {
      const client = await registerClient(ctx, probe, registeredCodeClient);
      const pushed = await probe(post('setup', par, [...new URLSearchParams(request(client.clientId, codeRedirect, { scope: 'openid profile' }))], basic(client.clientId, client.secret)));
      if (pushed.status !== 201) throw new SetupRefused(`PAR answered ${pushed.status}`);
      const uri = String((JSON.parse(pushed.body) as Record<string, unknown>).request_uri);
      // Both at once, each judged: the authorization request may find the client and lose it halfway.
      const browser = new Visitor(probe);
      const [page] = await Promise.all([
        browser.get(`${authorize}?${new URLSearchParams({ client_id: client.clientId, request_uri: uri })}`),
        deleteClient(ctx, probe, client),
      ]);
      return browser.formRequest('authorize: PAR request_uri while its client is being deleted (a race)', Visitor.formOf(page, 'sign-in'), signInFields);
    }),

    // ---- the sign-in form
    seed('sign-in form', 'sign-in form: right password', async (probe) => {
      const { browser, page } = await atSignIn(probe);
      return browser.formRequest('sign-in form: right password', page, signInFields);
    }),
    seed('sign-in form', 'sign-in form: wrong password', async (probe) => {
      const { browser, page } = await atSignIn(probe);
      return browser.formRequest('sign-in form: wrong password', page, { username: fx.user.username, password: 'not-the-password' });
    }),
    seed('sign-in form', 'sign-in form: CSRF token of another browser', async (probe) => {
      const mine = await atSignIn(probe);
      const theirs = await atSignIn(probe);
      return mine.browser.formRequest('sign-in form: CSRF token of another browser', mine.page, { ...signInFields, csrf: theirs.page.fields.csrf! });
    }),
    seed('sign-in form', 'sign-in form: CSRF token of another interaction', async (probe) => {
      const { browser, page } = await atSignIn(probe);
      const second = Visitor.formOf(await browser.get(`${authorize}?${codeQuery({ state: 'second' })}`), 'sign-in');
      return browser.formRequest('sign-in form: CSRF token of another interaction', page, { ...signInFields, csrf: second.fields.csrf! });
    }),
    seed('sign-in form', 'sign-in form of a client deleted meanwhile (RFC 7592)', async (probe) => {
      const client = await registerClient(ctx, probe, registeredCodeClient);
      const { browser, page } = await atSignIn(probe, new URLSearchParams(request(client.clientId, codeRedirect, { scope: 'openid profile' })).toString());
      await deleteClient(ctx, probe, client);
      return browser.formRequest('sign-in form of a client deleted meanwhile (RFC 7592)', page, signInFields);
    }),

    // ---- the consent form
    seed('consent form', 'consent form: approve', async (probe) => {
      const { browser, page } = await atConsent(probe);
      return browser.formRequest('consent form: approve', page, { decision: 'approve' });
    }),
    seed('consent form', 'consent form: deny', async (probe) => {
      const { browser, page } = await atConsent(probe);
      return browser.formRequest('consent form: deny', page, { decision: 'deny' });
    }),
    seed('consent form', 'consent form: CSRF token of the sign-in step', async (probe) => {
      const { browser, page } = await atConsent(probe);
      const other = await atSignIn(probe);
      return browser.formRequest('consent form: CSRF token of the sign-in step', page, { decision: 'approve', csrf: other.page.fields.csrf!, interaction: other.page.fields.interaction! });
    }),
    seed('consent form', 'consent form without a session', async (probe) => {
      const { page } = await atConsent(probe);
      const stranger = await atSignIn(probe);
      return stranger.browser.formRequest('consent form without a session', page, { decision: 'approve' });
    }),
    seed('consent form', 'consent form of a client deleted meanwhile (RFC 7592)', async (probe) => {
      const client = await registerClient(ctx, probe, registeredCodeClient);
      const { browser, page } = await atConsent(probe, new URLSearchParams(request(client.clientId, codeRedirect, { scope: 'openid profile', prompt: 'consent' })).toString());
      await deleteClient(ctx, probe, client);
      return browser.formRequest('consent form of a client deleted meanwhile (RFC 7592)', page, { decision: 'approve' });
    }),

    // ---- the logout form
    seed('logout form', 'logout form: confirm', async (probe) => {
      const { browser, page } = await atLogout(probe);
      return browser.formRequest('logout form: confirm', page, { decision: 'approve' });
    }),
    seed('logout form', 'logout form: stay signed in', async (probe) => {
      const { browser, page } = await atLogout(probe);
      return browser.formRequest('logout form: stay signed in', page, { decision: 'deny' });
    }),
    seed('logout form', 'logout form: CSRF token of another browser', async (probe) => {
      const { browser, page } = await atLogout(probe);
      const other = sharedBrowser(probe);
      await other.signInIfAsked(await other.get(`${authorize}?${spaQuery()}`), fx.user);
      const theirs = Visitor.formOf(await other.get(endSession), 'logout');
      return browser.formRequest('logout form: CSRF token of another browser', page, { decision: 'approve', csrf: theirs.fields.csrf! });
    }),

    // ---- end session (RP-Initiated Logout 1.0)
    seed('end session', 'end session: GET with a hint, signed in', async (probe) => {
      const browser = await signedInBrowser(probe);
      return get('end session: GET with a hint, signed in', `${endSession}?${new URLSearchParams({
        id_token_hint: s.idToken, post_logout_redirect_uri: postLogoutRedirect, state: 'abc', client_id: 'web',
      })}`, [['cookie', browser.cookie]]);
    }),
    seed('end session', 'end session: POST with a hint, signed in', async (probe) => {
      const browser = await signedInBrowser(probe);
      return withCookie(post('end session: POST with a hint, signed in', endSession, [['id_token_hint', s.idToken], ['state', 'abc'], ['ui_locales', 'de']]), browser.cookie);
    }),
    seed('end session', 'end session: GET without a session', () => get('end session: GET without a session', `${endSession}?${new URLSearchParams({
      client_id: 'code', post_logout_redirect_uri: postLogoutRedirect, state: 'abc',
    })}`)),
    seed('end session', 'end session: GET with a hint, no session', () => get('end session: GET with a hint, no session', `${endSession}?${new URLSearchParams({
      id_token_hint: s.idToken, post_logout_redirect_uri: postLogoutRedirect,
    })}`)),
  ];
}
