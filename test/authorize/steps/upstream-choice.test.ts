/**
 * Issue 34, with plain values: a plugin offering several identity providers gets the sign-in
 * page with a button each (and its providers' origins for the CSP), `acr_values=idp:<name>`
 * goes to one at once, a button's POST starts that one, and a provider's failure shows the
 * buttons again naming it, worded by the page only for the reasons it knows.
 */
import { describe, expect, it } from 'vitest';
import { createExternalSignIn } from '../../../src/authorize/steps/external-sign-in.js';
import { createUpstreamChoice } from '../../../src/authorize/steps/upstream-choice.js';
import type { SignedIn } from '../../../src/authorize/steps/signed-in.js';
import type { ExternalSignIn } from '../../../src/sdk/index.js';
import { pageForm, pageParts, request, silent, state } from './fakes.js';

function setup(answer: () => unknown = () => undefined, passwordForm?: boolean) {
  const parts = pageParts();
  parts.interactions.stored.set('i1', { request: request() });
  const started: unknown[] = [];
  const external: ExternalSignIn = {
    providers: [{ name: 'contoso', displayName: 'Contoso', formAction: 'https://login.contoso.example', domains: ['contoso.com'] }, { name: 'github', displayName: 'GitHub' }],
    ...(passwordForm === undefined ? {} : { passwordForm }),
    start: async (s) => (started.push(s.provider), 'https://idp.example/authorize'),
    callback: async () => answer() as never,
  };
  const signedIn: SignedIn = async () => ({ status: 299 });
  const choice = createUpstreamChoice({ external, csrf: parts.continuation });
  const signIn = createExternalSignIn({ external, choice, callbackUrl: 'https://issuer.example/connect/callback', ...parts, signedIn, logger: silent });
  return { signIn, started };
}

const ctx = { browserId: 'b1', remoteAddress: '10.0.0.7' };
const stateOf = (id: string, browserId: string) => `${id}.${pageForm(id, browserId).get('csrf')}`;

describe('several identity providers', () => {
  it('shows the sign-in page with a button each, and lets the page\'s form go on to their origins', async () => {
    const { signIn, started } = setup(undefined, false);
    const outcome = await signIn.start(state(), 'i1', 'b1');
    expect(outcome.view).toMatchObject({ kind: 'sign-in', providers: [{ name: 'contoso' }, { name: 'github' }], passwordForm: false });
    expect(outcome.formTargets).toEqual(['https://login.contoso.example']);
    expect(started).toEqual([]);
  });

  it('goes to the provider acr_values=idp:<name> names, and ignores a name it does not offer', async () => {
    const hinted = setup();
    expect((await hinted.signIn.start(state({ request: request({ acrValues: 'urn:x idp:github' }) }), 'i1', 'b1')).response).toEqual({ kind: 'redirect', location: 'https://idp.example/authorize' });
    expect(hinted.started).toEqual(['github']);
    const unknown = setup();
    expect((await unknown.signIn.start(state({ request: request({ acrValues: 'idp:okta' }) }), 'i1', 'b1')).view?.kind).toBe('sign-in');
  });

  it('goes to the provider whose domain holds the login_hint\'s; acr_values=idp:<name> wins over it', async () => {
    const byDomain = setup();
    expect((await byDomain.signIn.start(state({ request: request({ loginHint: 'Ann@CONTOSO.com' }) }), 'i1', 'b1')).response?.kind).toBe('redirect');
    expect(byDomain.started).toEqual(['contoso']);
    const named = setup();
    await named.signIn.start(state({ request: request({ loginHint: 'ann@contoso.com', acrValues: 'idp:github' }) }), 'i1', 'b1');
    expect(named.started).toEqual(['github']);
    for (const loginHint of ['ann@fabrikam.com', 'ann@mail.contoso.com', 'contoso.com', 'ann']) {
      const other = setup();
      expect((await other.signIn.start(state({ request: request({ loginHint }) }), 'i1', 'b1')).view?.kind, loginHint).toBe('sign-in');
      expect(other.started).toEqual([]);
    }
  });

  it('starts the provider of the button pressed; a provider not offered is the start-again page', async () => {
    const { signIn, started } = setup();
    const form = (provider: string) => new Map([...pageForm('i1', 'b1'), ['step', 'upstream'], ['provider', provider]]);
    expect((await signIn.choose!(form('contoso'), ctx)).response).toEqual({ kind: 'redirect', location: 'https://idp.example/authorize' });
    expect(started).toEqual(['contoso']);
    expect((await signIn.choose!(form('okta'), ctx)).view).toEqual({ kind: 'message', message: 'start-again' });
  });

  it('after a provider failed, offers the buttons again naming it; a reason the page has no words for shows the message', async () => {
    const known = setup(() => ({ state: stateOf('i1', 'b1'), message: 'x', provider: 'Contoso', reason: 'cancelled' }));
    expect((await known.signIn.callback(new Map(), ctx)).view).toMatchObject({ kind: 'sign-in', upstreamFailure: { provider: 'Contoso', reason: 'cancelled' } });
    const odd = setup(() => ({ state: stateOf('i1', 'b1'), message: 'quota exceeded', provider: 'Contoso', reason: 'quota' }));
    expect((await odd.signIn.callback(new Map(), ctx)).view).toMatchObject({ kind: 'sign-in', upstreamFailure: { provider: 'Contoso', reason: undefined, message: 'quota exceeded' } });
  });
});
