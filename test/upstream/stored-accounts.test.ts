/** The database-backed account links (`src/upstream/stored-accounts.ts`) over the memory store's users. */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { DisabledAccountError, storedUpstreamAccounts } from '../../src/upstream/stored-accounts.js';
import type { UpstreamIdentity } from '../../src/upstream/upstream-accounts.js';

const clock = { now: () => 1_800_000_000_000 };
const identity = (over: Partial<UpstreamIdentity> = {}): UpstreamIdentity => ({
  provider: 'corp', issuer: 'https://idp.example', subject: 'u-1', claims: { name: 'Ann', email: 'ann@example.com', nested: { x: 1 } },
  email: 'ann@example.com', emailVerified: true, ...over,
});
const local = (subjectId: string, email: string, extra: Record<string, unknown> = {}) => ({
  subjectId, username: subjectId, email, emailVerified: true, claims: {}, disabled: false, passwordHash: undefined, createdAt: 0, ...extra,
});

function setUp() {
  const store = createMemoryStore(clock);
  return { users: store.users, accounts: storedUpstreamAccounts(() => store.users, clock) };
}

describe('stored upstream accounts', () => {
  it('creates a user with plain claims only, the e-mail in its own fields, and finds it by issuer and subject', async () => {
    const { users, accounts } = setUp();
    const subject = await accounts.createFromUpstream(identity());
    expect(await users.getBySubject(subject)).toMatchObject({ username: 'corp:u-1', email: 'ann@example.com', emailVerified: true, claims: { name: 'Ann' } });
    expect(await accounts.findByUpstream('corp', 'https://idp.example', 'u-1')).toBe(subject);
    // Another issuer under the same provider name is another identity.
    expect(await accounts.findByUpstream('corp', 'https://other.example', 'u-1')).toBeUndefined();
  });

  it('takes another username when a local user holds the natural one', async () => {
    const { users, accounts } = setUp();
    await users.add(local('corp:u-1', 'x@example.com'));
    const subject = await accounts.createFromUpstream(identity());
    expect((await users.getBySubject(subject))!.username).toMatch(/^corp:u-1~[0-9a-f]{8}$/);
  });

  it('links by verified e-mail only to exactly one enabled user', async () => {
    const { users, accounts } = setUp();
    await users.add(local('ann', 'ann@example.com'));
    expect(await accounts.linkByVerifiedEmail(identity())).toBe('ann');
    expect(await accounts.findByUpstream('corp', 'https://idp.example', 'u-1')).toBe('ann');

    const two = setUp();
    await two.users.add(local('a1', 'ann@example.com'));
    await two.users.add(local('a2', 'ANN@example.com'));
    expect(await two.accounts.linkByVerifiedEmail(identity())).toBeUndefined();

    const off = setUp();
    await off.users.add(local('a3', 'ann@example.com', { disabled: true }));
    expect(await off.accounts.linkByVerifiedEmail(identity())).toBeUndefined();
  });

  it('refuses a linked user who was disabled instead of answering "not found" (which would make a new account)', async () => {
    const { users, accounts } = setUp();
    const subject = await accounts.createFromUpstream(identity());
    await users.update(subject, { disabled: true }, clock.now());
    await expect(accounts.findByUpstream('corp', 'https://idp.example', 'u-1')).rejects.toBeInstanceOf(DisabledAccountError);
  });
});
