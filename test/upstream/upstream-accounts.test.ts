/**
 * Account linking (issue 34): a link by (provider, issuer, subject) first; a verified e-mail
 * links to an existing user only when the deployment allows it and the provider is trusted to
 * verify e-mail; else a new user with a fresh subject.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryUpstreamAccounts, localSubjectFor, type UpstreamIdentity } from '../../src/upstream/upstream-accounts.js';

const identity: UpstreamIdentity = { provider: 'corp', issuer: 'https://idp.example', subject: 'u1', claims: { email: 'ann@example.com' }, email: 'ann@example.com', emailVerified: true };
const on = { linkByVerifiedEmail: true, providerVerifiesEmail: true };
const seeded = () => createMemoryUpstreamAccounts([{ subject: 'local-ann', email: 'ann@example.com', emailVerified: true }]);

describe('localSubjectFor', () => {
  it('links by a verified e-mail when allowed, then finds the link', async () => {
    const accounts = seeded();
    expect(await localSubjectFor(accounts, identity, on)).toEqual({ subject: 'local-ann', how: 'linked' });
    expect(await localSubjectFor(accounts, { ...identity, email: 'ann.new@example.com' }, on)).toEqual({ subject: 'local-ann', how: 'found' });
  });

  it.each([
    ['the deployment does not allow it', { ...on, linkByVerifiedEmail: false }, identity],
    ['the provider is not trusted to verify e-mail', { ...on, providerVerifiesEmail: false }, identity],
    ['the e-mail is not verified', on, { ...identity, emailVerified: false }],
    ['the local user\'s e-mail is another', on, { ...identity, email: 'someone@example.com' }],
  ])('creates a new user when %s', async (_why, policy, who) => {
    const accounts = seeded();
    const result = await localSubjectFor(accounts, who, policy);
    expect(result.how).toBe('created');
    expect(result.subject).not.toBe('local-ann');
    expect(accounts.users.get('local-ann')!.links).toEqual([]);
  });

  it('the same subject at another issuer is another person', async () => {
    const accounts = createMemoryUpstreamAccounts();
    const off = { ...on, linkByVerifiedEmail: false };
    const first = await localSubjectFor(accounts, identity, off);
    const other = await localSubjectFor(accounts, { ...identity, issuer: 'https://other.example' }, off);
    expect(other.subject).not.toBe(first.subject);
  });
});
