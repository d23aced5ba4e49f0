/**
 * Pending authorization interactions (issue 33, item 4): each start is counted before anything
 * is written, and the record holds the request in a compact form that reads back unchanged.
 */
import { describe, expect, it } from 'vitest';
import type { AuthorizationRequest } from '../../src/authorize/authorization-request.js';
import { createInteractions } from '../../src/authorize/interactions.js';
import { createInteractionLimit } from '../../src/authorize/interaction-limit.js';
import { memoryWindowLimit } from '../../src/throttling/rate-limits.js';
import { isOAuthError } from '../../src/sdk/errors.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { PersistedGrant, Store } from '../../src/store/store.js';
import { manualClock } from '../device/helpers.js';

/** A memory store that keeps what was added, to measure it. */
function keptStore(clock: { now(): number }): { store: Store; added: PersistedGrant[] } {
  const inner = createMemoryStore(clock);
  const added: PersistedGrant[] = [];
  return { added, store: { ...inner, add: async (g) => void (added.push(g), await inner.add(g)) } };
}

/** A sign-in a relying party typically starts. */
const typical: AuthorizationRequest = {
  clientId: 'web', redirectUri: 'https://web.example.com/callback', responseMode: 'query', state: 'af0ifjsldkj3sd8c6f2e1a9b7',
  scopes: ['openid', 'profile', 'email', 'api1.read'], nonce: 'n-0S6_WzA2Mj4f9d8a7c6b5', codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  prompt: [], maxAge: undefined, loginHint: undefined,
};
/** Every field there is, each at its cap: what an attacker sends to fill the store. */
const largest: AuthorizationRequest = {
  ...typical, state: 's'.repeat(2000), nonce: 'n'.repeat(500), prompt: ['login', 'consent'], maxAge: 0, loginHint: 'h'.repeat(256),
  uiLocales: 'u'.repeat(100), dpopJkt: 'j'.repeat(43), responseMode: 'form_post',
};
/** How the record's data was written before (`{ request }` spelled out). */
const previousForm = (request: AuthorizationRequest): string => JSON.stringify({ request });

describe('interactions', () => {
  it('reads back every field, an empty state and max_age=0 included; the compact record is smaller than before', async () => {
    const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
    const { store, added } = keptStore(clock);
    const interactions = createInteractions({ store, clock });
    const minimal: AuthorizationRequest = { ...typical, state: undefined, nonce: undefined, codeChallenge: undefined, scopes: ['openid'] };
    const emptyState: AuthorizationRequest = { ...typical, state: '' };
    // JARM's modes (`jarm.ts`) come back as they went in: the response is signed after the pages.
    const jarmModes: AuthorizationRequest[] = [{ ...typical, responseMode: 'query.jwt' }, { ...minimal, responseMode: 'form_post.jwt' }];
    for (const request of [typical, largest, minimal, emptyState, ...jarmModes]) {
      const id = await interactions.start(request);
      expect(await interactions.get(id)).toEqual({ request });
    }
    const [typicalRecord, largestRecord] = added;
    // Measured: typical 296 → 175 bytes, largest 3222 → 3057 (state, nonce and hint are the caller's and needed).
    expect(previousForm(typical).length).toBe(296);
    expect(typicalRecord!.data.length).toBe(175);
    expect(previousForm(largest).length).toBe(3222);
    expect(largestRecord!.data.length).toBe(3057);
  });

  it('keeps what the sign-in and consent steps add, and reads a record written in the previous form', async () => {
    const clock = manualClock();
    const store = createMemoryStore(clock);
    const interactions = createInteractions({ store, clock });
    const id = await interactions.start(typical);
    await interactions.update(id, { request: typical, signedInAs: 'browser-1', consented: true });
    expect(await interactions.get(id)).toEqual({ request: typical, signedInAs: 'browser-1', consented: true });
    const old = 'o'.repeat(32);
    await store.add({
      key: `interaction:${old}`, type: 'authorization_interaction', clientId: 'web', subjectId: undefined, sessionId: undefined,
      createdAt: clock.now(), expiresAt: clock.now() + 60_000, consumedAt: undefined, data: JSON.stringify({ request: largest, signedInAs: 'b' }),
    });
    expect(await interactions.get(old)).toEqual({ request: largest, signedInAs: 'b' });
  });

  it('counts each start per address and in all, and over a limit answers 429 with Retry-After before writing anything', async () => {
    const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
    const { store, added } = keptStore(clock);
    const limit = createInteractionLimit({
      perAddress: memoryWindowLimit({ limit: 2, window: 60 }),
      total: memoryWindowLimit({ limit: 3, window: 60 }),
      clock,
    });
    const interactions = createInteractions({ store, clock, limit });
    const refusal = (address: string) => interactions.start(typical, address).then(() => undefined, (e: unknown) => e);
    await interactions.start(typical, '192.0.2.1');
    await interactions.start(typical, '192.0.2.1');
    const perAddress = await refusal('192.0.2.1');
    expect(isOAuthError(perAddress) && { status: perAddress.status, code: perAddress.code, headers: perAddress.headers })
      .toEqual({ status: 429, code: 'temporarily_unavailable', headers: { 'Retry-After': '60' } });
    // Another address may start one more; then the service-wide limit refuses every address.
    await interactions.start(typical, '192.0.2.2');
    clock.advance(30);
    const total = await refusal('192.0.2.3');
    expect(isOAuthError(total) && { status: total.status, headers: total.headers }).toEqual({ status: 429, headers: { 'Retry-After': '30' } });
    expect(added).toHaveLength(3);
    // A new window: the address may start again.
    clock.advance(30);
    await interactions.start(typical, '192.0.2.1');
    expect(added).toHaveLength(4);
  });
});
