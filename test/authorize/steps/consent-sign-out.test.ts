/**
 * The consent page's "Not you? Sign out", with plain values: the session signed out (its codes'
 * tokens revoked), an event, and the same request taken on afresh under a new browser id; a form
 * with another browser's CSRF token signs nobody out.
 */
import { describe, expect, it } from 'vitest';
import { createConsentSignOut } from '../../../src/authorize/steps/consent-sign-out.js';
import type { Proceed } from '../../../src/authorize/steps/flow-step.js';
import type { EventService } from '../../../src/events/event-service.js';
import { pageForm, pageParts, request, session, silent } from './fakes.js';

function setUp() {
  const parts = pageParts();
  parts.interactions.stored.set('i1', { request: request({ clientId: 'partner', redirectUri: 'https://partner.example/cb' }), signedInAs: 'b1', consented: true });
  const calls: string[] = [];
  const proceeded: unknown[] = [];
  const proceed: Proceed = async (req, _ctx, id, interaction, newBrowserId) => (proceeded.push({ clientId: req.clientId, id, interaction, newBrowserId }), { status: 299 });
  const raised: unknown[] = [];
  const events = { raise: (event: unknown) => void raised.push(event) } as unknown as EventService;
  const signOut = createConsentSignOut({
    sessions: {
      get: async (b) => (calls.push(`get ${b}`), b === 'b1' ? session() : undefined),
      signOut: async (b) => (calls.push(`signOut ${b}`), { session: session(), revoked: 2 }),
    },
    continuation: parts.continuation, newBrowserId: () => 'fresh', proceed, logger: silent, events,
  });
  return { signOut, calls, proceeded, raised };
}

describe('Not you? Sign out on the consent page', () => {
  it('signs the session out and takes the same request on afresh under a new browser id', async () => {
    const { signOut, calls, proceeded, raised } = setUp();
    const outcome = await signOut(pageForm('i1', 'b1', { step: 'sign-out' }), { browserId: 'b1', remoteAddress: undefined });
    expect(outcome).toEqual({ status: 299 });
    expect(calls).toEqual(['get b1', 'signOut b1']);
    expect(raised).toEqual([{ type: 'user.signed_out', subject: 'alice-sub', clientId: undefined }]);
    // Nothing signed in or approved in the interaction counts for the next person.
    expect(proceeded).toEqual([{ clientId: 'partner', id: 'i1', interaction: { request: request({ clientId: 'partner', redirectUri: 'https://partner.example/cb' }) }, newBrowserId: 'fresh' }]);
  });

  it('refuses a form with another browser\'s CSRF token, signing nobody out', async () => {
    const { signOut, calls, proceeded, raised } = setUp();
    const outcome = await signOut(pageForm('i1', 'someone-else', { step: 'sign-out' }), { browserId: 'b1', remoteAddress: undefined });
    expect(outcome).toEqual({ status: 400, view: { kind: 'message', message: 'start-again' } });
    expect(calls).toEqual([]);
    expect(proceeded).toEqual([]);
    expect(raised).toEqual([]);
  });
});
