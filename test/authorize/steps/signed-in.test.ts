/**
 * After a sign-in, with plain values: a new browser id (an id planted before signs nobody in,
 * session fixation), the old session ended, the interaction marked as signed in by the new id,
 * and the request taken on with that id for the cookie.
 */
import { describe, expect, it } from 'vitest';
import { createSignedIn } from '../../../src/authorize/steps/signed-in.js';
import type { Proceed } from '../../../src/authorize/steps/flow-step.js';
import { recordingInteractions, request, session } from './fakes.js';

describe('after a sign-in', () => {
  it('starts a session under a new browser id, ends the old one and takes the request on with the new id', async () => {
    const calls: string[] = [];
    const interactions = recordingInteractions();
    const proceeded: unknown[] = [];
    const proceed: Proceed = async (_req, _ctx, id, interaction, newBrowserId) => (proceeded.push({ id, interaction, newBrowserId }), { status: 299 });
    const signedIn = createSignedIn({
      sessions: {
        get: async (b) => (calls.push(`get ${b}`), session()),
        start: async (b, subject, previous) => (calls.push(`start ${b} ${subject} carrying ${previous?.session.sid} of ${previous?.browserId}`), session()),
        end: async (b) => void calls.push(`end ${b}`),
      },
      interactions, newBrowserId: () => 'fresh', proceed,
    });
    const outcome = await signedIn('alice-sub', { browserId: 'planted', remoteAddress: undefined }, 'i1', { request: request() }, 'sign_in_page');
    expect(outcome).toEqual({ status: 299 });
    expect(calls).toEqual(['get planted', 'start fresh alice-sub carrying sid-1 of planted', 'end planted']);
    expect(interactions.calls).toEqual(['update i1']);
    expect(proceeded).toEqual([{ id: 'i1', interaction: { request: request(), signedInAs: 'fresh' }, newBrowserId: 'fresh' }]);
  });
});
