/**
 * The response with plain values: the code for the signed-in subject, bound to the request
 * (RFC 6749 §4.1.2), the interaction ended, the code noted in the session, and the new cookie of
 * a sign-in in this request set.
 */
import { describe, expect, it } from 'vitest';
import { createCodeResponse } from '../../../src/authorize/steps/code-response.js';
import { ISSUER, recordingInteractions, redirectQuery, request, state } from './fakes.js';

describe('the code response', () => {
  it('issues a code bound to the request and the session, and answers it at the redirect URI', async () => {
    const issued: unknown[] = [];
    const noted: string[] = [];
    const interactions = recordingInteractions();
    const respond = createCodeResponse({
      issuer: ISSUER,
      codes: { issue: async (c) => (issued.push(c), { code: 'the-code', family: 'the-family' }) },
      sessions: { codeIssued: async (b, c, f) => void noted.push(`${b} ${c} ${f}`) },
      interactions,
    });
    const outcome = await respond(state({ request: request({ dpopJkt: 'jkt', codeChallenge: 'ch' }), interactionId: 'i3', newBrowserId: 'b2', browserId: 'b2' }));
    expect(redirectQuery(outcome)).toEqual({ code: 'the-code', state: 'st', iss: ISSUER });
    expect(outcome.browserId).toBe('b2');
    expect(issued).toEqual([{
      clientId: 'web', subject: 'alice-sub', lifetimeSeconds: 300,
      grant: { redirectUri: 'https://web.example/cb', codeChallenge: 'ch', scopes: ['openid', 'api.read'], nonce: 'n', sid: 'sid-1', authTime: expect.any(Number), dpopJkt: 'jkt' },
    }]);
    expect(interactions.calls).toEqual(['finish i3']);
    // Sign-out revokes the family the code's record names.
    expect(noted).toEqual(['b2 web the-family']);
  });

  it('refuses to run before the sign-in step has found a session', async () => {
    const respond = createCodeResponse({ issuer: ISSUER, codes: { issue: async () => ({ code: 'c', family: 'f' }) }, sessions: { codeIssued: async () => undefined }, interactions: recordingInteractions() });
    await expect(respond(state({ session: undefined }))).rejects.toThrow('the response step ran without a session');
  });
});
