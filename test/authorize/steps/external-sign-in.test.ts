/**
 * Signing in at a plugin's identity provider, with plain values: the redirect there carries a
 * `state` naming the interaction with a CSRF token of this browser, and only an answer bringing
 * that state back in the same browser, with a subject, signs anyone in.
 */
import { describe, expect, it } from 'vitest';
import { createExternalSignIn } from '../../../src/authorize/steps/external-sign-in.js';
import type { SignedIn } from '../../../src/authorize/steps/signed-in.js';
import type { ExternalSignIn } from '../../../src/sdk/index.js';
import { createEventService } from '../../../src/events/event-service.js';
import { NOW, pageForm, pageParts, request, silent, state } from './fakes.js';

function setup(answer: (params: ReadonlyMap<string, string>) => unknown, location = 'https://idp.example/authorize') {
  const parts = pageParts();
  parts.interactions.stored.set('i1', { request: request() });
  const started: unknown[] = [];
  const external: ExternalSignIn = {
    start: async (s) => (started.push(s), location),
    callback: async (params) => answer(params) as never,
  };
  const signedInAs: string[] = [];
  const signedIn: SignedIn = async (subject, _ctx, id, _i, via) => (signedInAs.push(`${subject} ${id} ${via}`), { status: 299 });
  const signIn = createExternalSignIn({ external, callbackUrl: 'https://issuer.example/connect/callback', ...parts, signedIn, logger: silent, events: createEventService(silent, () => NOW) });
  return { signIn, started, signedInAs, ...parts };
}

const stateOf = (id: string, browserId: string) => `${id}.${pageForm(id, browserId).get('csrf')}`;
const ctx = (browserId: string) => ({ browserId, remoteAddress: '10.0.0.7' });

describe('an external sign-in', () => {
  it('redirects to the identity provider with a state bound to the interaction and this browser', async () => {
    const { signIn, started } = setup(() => undefined);
    expect(await signIn.start(state(), 'i1', 'b1')).toEqual({ status: 200, response: { kind: 'redirect', location: 'https://idp.example/authorize' } });
    expect(started).toEqual([{ state: stateOf('i1', 'b1'), callbackUrl: 'https://issuer.example/connect/callback', clientId: 'web', clientName: 'Web shop', loginHint: undefined, uiLocales: undefined }]);
  });

  it('refuses a location that is not an absolute http(s) URL: a broken plugin is a server error, not a redirect', async () => {
    await expect(setup(() => undefined, '/relative').signIn.start(state(), 'i1', 'b1')).rejects.toThrow('no absolute URL');
    await expect(setup(() => undefined, 'javascript:alert(1)').signIn.start(state(), 'i1', 'b1')).rejects.toThrow('not http(s)');
  });

  it('signs in the subject the provider names, when its state comes back in the same browser', async () => {
    const { signIn, signedInAs } = setup(() => ({ state: stateOf('i1', 'b1'), subject: 'upstream-alice' }));
    expect(await signIn.callback(new Map(), ctx('b1'))).toEqual({ status: 299 });
    expect(signedInAs).toEqual(['upstream-alice i1 external']);
  });

  it('signs nobody in when the state arrives in another browser (login CSRF)', async () => {
    const { signIn, signedInAs } = setup(() => ({ state: stateOf('i1', 'b1'), subject: 'upstream-alice' }));
    expect(await signIn.callback(new Map(), ctx('b2'))).toEqual({ status: 400, view: { kind: 'message', message: 'start-again' } });
    expect(signedInAs).toEqual([]);
  });

  it('ends the interaction with a failure page when the provider names no subject', async () => {
    const { signIn, interactions } = setup(() => ({ state: stateOf('i1', 'b1'), message: 'denied upstream' }));
    expect(await signIn.callback(new Map(), ctx('b1'))).toEqual({ status: 400, view: { kind: 'message', message: 'external-sign-in-failed' } });
    expect(interactions.calls).toEqual(['finish i1']);
  });
});
