/**
 * The parts a Chromium sign-in test sets up around the service: the client's own site at its
 * redirect URI, a person in the service's user database, and a page with a virtual WebAuthn
 * authenticator (the DevTools protocol's WebAuthn domain through playwright-core) for passkeys.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { axeContext } from './accessibility.js';
import type { TestServer } from './server.js';

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
