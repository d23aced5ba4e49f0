/**
 * The sign-in step with plain values (OIDC Core §3.1.2.1): when a person must sign in (no
 * session, `prompt=login`, `max_age`, a hint naming someone else), `login_required` for
 * `prompt=none` (§3.1.2.6), and otherwise the sign-in method's page under an interaction and a
 * browser id; a request with a fresh enough session passes on to the next step.
 */
import { describe, expect, it } from 'vitest';
import type { Interaction } from '../../../src/authorize/interactions.js';
import type { FlowState } from '../../../src/authorize/steps/flow-step.js';
import { createSignInStep, needsSignIn, type SignInMethod } from '../../../src/authorize/steps/sign-in-step.js';
import { clock, ISSUER, NOW, recordingInteractions, redirectQuery, request, session, state } from './fakes.js';

describe('whether a person must sign in', () => {
  const fresh = session({ authTime: NOW / 1000 - 60 });
  const signedInHere: Interaction = { request: request(), signedInAs: 'b1' };
  it.each([
    ['no session', request(), undefined, undefined, true],
    ['a session and a plain request', request(), fresh, undefined, false],
    ['prompt=login', request({ prompt: ['login'] }), fresh, undefined, true],
    ['max_age=0, which is prompt=login', request({ maxAge: 0 }), fresh, undefined, true],
    ['a sign-in older than max_age', request({ maxAge: 59 }), fresh, undefined, true],
    ['a sign-in within max_age', request({ maxAge: 60 }), fresh, undefined, false],
    ['an id_token_hint of another user', request({ hintSubject: 'bob-sub' }), fresh, undefined, true],
    ['an id_token_hint of the same user', request({ hintSubject: 'alice-sub' }), fresh, undefined, false],
    ['prompt=login after signing in in this interaction', request({ prompt: ['login'] }), fresh, signedInHere, false],
  ])('%s: %s', (_case, req, s, interaction, expected) => {
    expect(needsSignIn(req, s, interaction, 'b1', clock)).toBe(expected);
  });

  it('does not count a sign-in in this interaction by another browser', () => {
    expect(needsSignIn(request({ prompt: ['login'] }), session(), { request: request(), signedInAs: 'b2' }, 'b1', clock)).toBe(true);
  });
});

describe('the sign-in step', () => {
  function setup() {
    const interactions = recordingInteractions();
    const started: { state: FlowState; id: string; browserId: string }[] = [];
    const method: SignInMethod = { start: (s, id, browserId) => (started.push({ state: s, id, browserId }), { status: 200, view: { kind: 'message', message: 'start-again' } }) };
    const step = createSignInStep({ issuer: ISSUER, clock, interactions, newBrowserId: () => 'new-browser', method });
    return { step, interactions, started };
  }

  it('passes a request with a session on to the next step, starting nothing', async () => {
    const { step, interactions } = setup();
    expect(await step.run(state())).toBeUndefined();
    expect(interactions.calls).toEqual([]);
  });

  it('answers login_required at the redirect URI for prompt=none, starting nothing (OIDC Core §3.1.2.6)', async () => {
    const { step, interactions } = setup();
    const outcome = await step.run(state({ request: request({ prompt: ['none'] }), session: undefined }));
    expect(redirectQuery(outcome)).toEqual({ error: 'login_required', error_description: 'The user must sign in.', state: 'st', iss: ISSUER });
    expect(interactions.calls).toEqual([]);
  });

  it('starts an interaction and hands over to the sign-in method, with a new browser id in the cookie for a browser without one', async () => {
    const { step, interactions, started } = setup();
    const outcome = await step.run(state({ ctx: { browserId: undefined, remoteAddress: '10.0.0.7' }, browserId: undefined, session: undefined }));
    expect(interactions.calls).toEqual(['start i1']);
    expect(started.map(({ id, browserId }) => ({ id, browserId }))).toEqual([{ id: 'i1', browserId: 'new-browser' }]);
    expect(outcome).toEqual({ status: 200, view: { kind: 'message', message: 'start-again' }, browserId: 'new-browser' });
  });

  it("continues the request's interaction and keeps the browser's cookie when it has one", async () => {
    const { step, interactions, started } = setup();
    const outcome = await step.run(state({ interactionId: 'i9', request: request({ prompt: ['login'] }) }));
    expect(interactions.calls).toEqual([]);
    expect(started.map(({ id, browserId }) => ({ id, browserId }))).toEqual([{ id: 'i9', browserId: 'b1' }]);
    expect(outcome?.browserId).toBeUndefined();
  });
});
