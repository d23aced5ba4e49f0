/**
 * The passkey checks (issue 35) with a software authenticator: a registration and its
 * assertions verify; a challenge works once and only for its ceremony and user; a counter that
 * does not grow, another origin, another user's credential and an unknown one are refused.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createPasskeyService, type PasskeyService } from '../../src/second-factor/passkeys.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';
import type { EventService } from '../../src/events/event-service.js';
import type { ServiceEvent } from '../../src/events/service-event.js';

const issuer = 'https://id.example.com';
let store: Store;
let passkeys: PasskeyService;
let device: SoftAuthenticator;
let events: { events: ServiceEvent[]; service: EventService; types(): string[] };

function recordEvents(): typeof events {
  const list: ServiceEvent[] = [];
  return { events: list, service: { raise: (e) => void list.push(e), attach: () => undefined }, types: () => list.map((e) => e.type) };
}

beforeEach(async () => {
  store = createMemoryStore();
  events = recordEvents();
  passkeys = createPasskeyService({ issuer, store: () => store, factors: () => store.factors, clock: { now: () => Date.now() }, events: events.service });
  device = new SoftAuthenticator(issuer);
  expect(await passkeys.register('sub-1', device.register(await passkeys.registrationOptions('sub-1', 'olga')), 'Phone')).toBe(true);
});

describe('passkeys', () => {
  it('registers with attestation none and signs in as a second factor and without a password', async () => {
    expect(passkeys.rpId).toBe('id.example.com');
    expect(await passkeys.list('sub-1')).toMatchObject([{ name: 'Phone', counter: 0, backedUp: false }]);
    const second = await passkeys.authenticate(device.assert(await passkeys.authenticationOptions('sub-1')), 'sub-1', 'test');
    expect(second).toEqual({ subject: 'sub-1', amr: ['hwk', 'user'] });
    const alone = await passkeys.authenticate(device.assert(await passkeys.authenticationOptions(undefined)), undefined, 'test');
    expect(alone).toEqual({ subject: 'sub-1', amr: ['hwk', 'user'] });
    expect((await passkeys.list('sub-1'))[0]!.counter).toBe(2);
    expect(events.types()).toEqual(['second_factor.enrolled', 'second_factor.used', 'second_factor.used']);
  });

  it('takes a challenge once: a replayed assertion is refused', async () => {
    const options = await passkeys.authenticationOptions('sub-1');
    const answer = device.assert(options);
    expect(await passkeys.authenticate(answer, 'sub-1', 'test')).toBeDefined();
    expect(await passkeys.authenticate(answer, 'sub-1', 'test')).toBeUndefined();
    // A fresh signature over a spent challenge too.
    expect(await passkeys.authenticate(device.assert(options), 'sub-1', 'test')).toBeUndefined();
  });

  it('refuses a counter that did not grow (a cloned authenticator)', async () => {
    expect(await passkeys.authenticate(device.assert(await passkeys.authenticationOptions('sub-1'), { counter: 5 }), 'sub-1', 'test')).toBeDefined();
    expect(await passkeys.authenticate(device.assert(await passkeys.authenticationOptions('sub-1'), { counter: 5 }), 'sub-1', 'test')).toBeUndefined();
    expect(await passkeys.authenticate(device.assert(await passkeys.authenticationOptions('sub-1'), { counter: 3 }), 'sub-1', 'test')).toBeUndefined();
    expect(await passkeys.authenticate(device.assert(await passkeys.authenticationOptions('sub-1'), { counter: 6 }), 'sub-1', 'test')).toBeDefined();
  });

  it('refuses another origin, another ceremony\'s or user\'s challenge, another user\'s credential, an unknown one', async () => {
    expect(await passkeys.authenticate(device.assert(await passkeys.authenticationOptions('sub-1'), { origin: 'https://evil.example' }), 'sub-1', 'test')).toBeUndefined();
    // A registration challenge is no sign-in challenge.
    expect(await passkeys.authenticate(device.assert(await passkeys.registrationOptions('sub-1', 'olga')), 'sub-1', 'test')).toBeUndefined();
    // A challenge given for sub-2's second factor does not sign in sub-1.
    expect(await passkeys.authenticate(device.assert(await passkeys.authenticationOptions('sub-2')), 'sub-1', 'test')).toBeUndefined();
    // sub-1's passkey is not sub-2's second factor.
    expect(await passkeys.authenticate(device.assert(await passkeys.authenticationOptions('sub-2')), 'sub-2', 'test')).toBeUndefined();
    const stranger = new SoftAuthenticator(issuer);
    stranger.userHandle = Buffer.from('sub-1').toString('base64url');
    expect(await passkeys.authenticate(stranger.assert(await passkeys.authenticationOptions(undefined)), undefined, 'test')).toBeUndefined();
    expect(await passkeys.authenticate('not json', undefined, 'test')).toBeUndefined();
    expect(events.types().filter((t) => t === 'second_factor.failed').length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(events.events)).not.toContain('signature');
  });

  it('refuses the same credential twice and a registration whose challenge is gone', async () => {
    expect(await passkeys.register('sub-1', device.register(await passkeys.registrationOptions('sub-1', 'olga')), 'Again')).toBe(false);
    const other = new SoftAuthenticator(issuer);
    const options = await passkeys.registrationOptions('sub-1', 'olga');
    expect(await passkeys.register('sub-1', other.register(options), 'Laptop')).toBe(true);
    expect(await passkeys.register('sub-1', new SoftAuthenticator(issuer).register(options), 'Tablet')).toBe(false);
    expect((await passkeys.list('sub-1')).map((p) => p.name)).toEqual(['Phone', 'Laptop']);
    expect(await passkeys.remove('sub-1', other.credentialId.toString('base64url'))).toBe(true);
    expect((await passkeys.list('sub-1')).map((p) => p.name)).toEqual(['Phone']);
  });
});
