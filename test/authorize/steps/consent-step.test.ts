/**
 * The consent step with plain values: a first-party client passes on, a client that asks for
 * consent gets the page (or `consent_required` for `prompt=none`, OIDC Core §3.1.2.6), and the
 * page's POST denies (`access_denied` at the redirect URI, RFC 6749 §4.1.2.1) or approves (the
 * consent is remembered and the request goes on).
 */
import { describe, expect, it } from 'vitest';
import type { Interaction } from '../../../src/authorize/interactions.js';
import { createConsentStep } from '../../../src/authorize/steps/consent-step.js';
import type { Proceed } from '../../../src/authorize/steps/flow-step.js';
import type { RaisedEvent } from '../../../src/sdk/index.js';
import { createEventService } from '../../../src/events/event-service.js';
import { ISSUER, NOW, pageForm, pageParts, partner, redirectQuery, request, session, silent, state } from './fakes.js';

const partnerRequest = request({ clientId: 'partner', redirectUri: 'https://partner.example/cb' });

function setup(sessionOf: (browserId: string) => ReturnType<typeof session> | undefined = () => session()) {
  const parts = pageParts();
  const events: RaisedEvent[] = [];
  const eventService = createEventService(silent, () => NOW);
  eventService.attach([{ handle: (e) => void events.push(e) }]);
  const consented: string[] = [];
  const proceeded: { interaction: Interaction | undefined }[] = [];
  const proceed: Proceed = async (_req, _ctx, _id, interaction) => (proceeded.push({ interaction }), { status: 299 });
  const step = createConsentStep({
    issuer: ISSUER,
    users: { findBySubject: async (id) => (id === 'alice-sub' ? { subjectId: id, username: 'alice', claims: {} } : undefined) },
    scopeDescriptions: new Map([['api.read', 'Read your orders']]),
    sessions: { get: async (b) => sessionOf(b), consentGiven: async (b, c, scopes) => void consented.push(`${b} ${c} ${scopes.join(' ')}`) },
    ...parts, proceed, events: eventService,
  });
  return { step, events, consented, proceeded, ...parts };
}

describe('the consent step', () => {
  it('passes a first-party client on to the response', async () => {
    expect(await setup().step.run(state())).toBeUndefined();
  });

  it('passes a client whose scopes the session already consented to', async () => {
    const remembered = session({ consents: { partner: ['openid', 'api.read'] } });
    expect(await setup().step.run(state({ client: partner, request: partnerRequest, session: remembered }))).toBeUndefined();
  });

  it('shows the consent page with the scopes, the user and a CSRF token of this browser', async () => {
    const { step, interactions } = setup();
    const outcome = await step.run(state({ client: partner, request: partnerRequest }));
    expect(interactions.calls).toEqual(['start i1']);
    expect(outcome).toMatchObject({
      status: 200, redirectUri: 'https://partner.example/cb',
      view: { kind: 'consent', interaction: 'i1', clientId: 'partner', clientName: 'partner', username: 'alice', unverified: false, scopes: [{ name: 'openid' }, { name: 'api.read', description: 'Read your orders' }] },
    });
  });

  it('answers consent_required for prompt=none, with the cookie of a sign-in in this request', async () => {
    const outcome = await setup().step.run(state({ client: partner, request: { ...partnerRequest, prompt: ['none'] }, newBrowserId: 'b2', browserId: 'b2' }));
    expect(redirectQuery(outcome)).toMatchObject({ error: 'consent_required' });
    expect(outcome?.browserId).toBe('b2');
  });

  it('denies at the redirect URI on "deny", and ends the interaction', async () => {
    const { step, interactions, events } = setup();
    interactions.stored.set('i7', { request: partnerRequest });
    const outcome = await step.submit(pageForm('i7', 'b1', { decision: 'deny' }), { browserId: 'b1', remoteAddress: undefined });
    expect(redirectQuery(outcome)).toEqual({ error: 'access_denied', error_description: 'The user denied the request.', state: 'st', iss: ISSUER });
    expect(interactions.calls).toEqual(['finish i7']);
    expect(events.map((e) => e.type)).toEqual(['consent.denied']);
  });

  it('remembers an approval and takes the request on as consented', async () => {
    const { step, interactions, consented, proceeded } = setup();
    interactions.stored.set('i7', { request: partnerRequest });
    expect(await step.submit(pageForm('i7', 'b1', { decision: 'approve' }), { browserId: 'b1', remoteAddress: undefined })).toEqual({ status: 299 });
    expect(consented).toEqual(['b1 partner openid api.read']);
    expect(proceeded).toEqual([{ interaction: { request: partnerRequest, consented: true } }]);
  });

  it('takes the request on unchanged without a decision, or without a session (it then asks for a sign-in)', async () => {
    const { step, interactions, proceeded } = setup((b) => (b === 'b1' ? session() : undefined));
    interactions.stored.set('i7', { request: partnerRequest });
    await step.submit(pageForm('i7', 'b1', { decision: 'maybe' }), { browserId: 'b1', remoteAddress: undefined });
    await step.submit(pageForm('i7', 'b3', { decision: 'approve' }), { browserId: 'b3', remoteAddress: undefined });
    expect(proceeded).toEqual([{ interaction: { request: partnerRequest } }, { interaction: { request: partnerRequest } }]);
  });

  it('answers the start-again page to a form of another browser', async () => {
    const { step, interactions } = setup();
    interactions.stored.set('i7', { request: partnerRequest });
    expect(await step.submit(pageForm('i7', 'b1', { decision: 'approve' }), { browserId: 'b2', remoteAddress: undefined })).toEqual({ status: 400, view: { kind: 'message', message: 'start-again' } });
  });
});
