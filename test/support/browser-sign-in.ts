/**
 * The parts a Chromium sign-in test sets up around the service: the client's own site at its
 * redirect URI, a person in the service's user database, and a page with a virtual WebAuthn
 * authenticator (the DevTools protocol's WebAuthn domain through playwright-core) for passkeys;
 * `startPasskeyBrowser` puts them together with a service that offers passkeys.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { ClientConfig } from '../../src/config/schema.js';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { axeContext } from './accessibility.js';
import { launchChromium } from './chromium.js';
import { freePort, startServer, type TestServer } from './server.js';
import { signInClients, signInConfig } from './sign-in.js';

export interface CallbackApp {
  /** The redirect URI: `http://127.0.0.1:<port>/callback`. */
  readonly callback: string;
  close(): void;
}

/** The client's site: every path answers a page headed "Signed in". */
export async function startCallbackApp(): Promise<CallbackApp> {
  const app = createServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>App</title><h1>Signed in</h1>'));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  return { callback: `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`, close: () => void app.close() };
}

/** A person in the user database (not the config), so the account pages may change them. */
export async function addDatabaseUser(server: TestServer, user: { subjectId: string; username: string; password: string; claims?: Record<string, string | number | boolean> }): Promise<void> {
  await server.app.store.users.add({
    subjectId: user.subjectId, username: user.username, email: undefined, emailVerified: false, claims: user.claims ?? {}, disabled: false,
    // The cheapest scrypt cost: the test is about the pages, not the hash.
    passwordHash: await hashPassword(user.password, { ln: 4, r: 8, p: 1 }), createdAt: Date.now(),
  });
}

export interface AuthenticatorPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Whether the virtual authenticator answers at once (as a person touching it would). */
  presence(enabled: boolean): Promise<void>;
}

/** A fresh context (axe loaded) with one page that holds a resident-key, user-verifying platform authenticator. */
export async function openAuthenticatorPage(browser: Browser): Promise<AuthenticatorPage> {
  const context = await axeContext(browser);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return {
    context, page,
    async presence(enabled) {
      await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled });
    },
  };
}

export interface PasskeyBrowser extends AuthenticatorPage {
  readonly server: TestServer;
  /** `http://localhost:<port>`. */
  readonly issuer: string;
  /** The client's redirect URI (`startCallbackApp`). */
  readonly callback: string;
  readonly browser: Browser;
  close(): Promise<void>;
}

/**
 * The service with `secondFactor.passkeys`, the sign-in clients and the test's own (which may
 * redirect to `callback`), `user` in its database, and Chromium on a page with an authenticator.
 * The issuer is `http://localhost:<port>`: WebAuthn needs a domain as the relying party id and a
 * secure context, which localhost is.
 */
export async function startPasskeyBrowser(options: {
  clients(callback: string): ClientConfig[];
  user: Parameters<typeof addDatabaseUser>[1];
}): Promise<PasskeyBrowser> {
  const app = await startCallbackApp();
  const { callback } = app;
  const port = await freePort();
  const issuer = `http://localhost:${port}`;
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  let opened: AuthenticatorPage | undefined;
  const close = async () => {
    await opened?.context.close();
    await browser?.close();
    await server?.close();
    app.close();
  };
  try {
    server = await startServer(await signInConfig({ port, issuer, secondFactor: { passkeys: true }, clients: [...signInClients, ...options.clients(callback)] }));
    await addDatabaseUser(server, options.user);
    browser = await launchChromium();
    opened = await openAuthenticatorPage(browser);
    return { ...opened, server, issuer, callback, browser, close };
  } catch (err) {
    await close();
    throw err;
  }
}
