/** Issue 36: anonymously registered clients are removed once unused for `unusedLifetime`. */
import { describe, expect, it } from 'vitest';
import { removeUnusedRegistrations } from '../../../src/clients/registration/unused-registrations.js';
import { createMemoryClientRecords } from '../../../src/store/memory-client-records.js';

const day = 86_400_000;
const definition = (open: boolean) => ({
  allowedGrantTypes: ['authorization_code'], allowedScopes: ['openid'], redirectUris: ['http://127.0.0.1/cb'], requireClientSecret: false,
  properties: open ? { registered: 'true', 'registration.open': 'true' } : { registered: 'true' },
});

describe('removeUnusedRegistrations', () => {
  it('removes open registrations unused since registration or last use, with their access tokens; keeps the rest', async () => {
    const records = createMemoryClientRecords();
    const t0 = Date.UTC(2027, 0, 1);
    const add = (id: string, open: boolean) => records.add({ kind: 'client', id, definition: definition(open), disabled: false, createdAt: t0, secrets: [] });
    await add('never-used', true);
    await add('used-lately', true);
    await add('used-long-ago', true);
    await add('with-token', false);
    await records.touch('client', 'used-lately', t0 + 25 * day);
    await records.touch('client', 'used-long-ago', t0 + 5 * day);
    const tokensRemoved: string[] = [];
    const deps = { records, removeAccess: async (id: string) => void tokensRemoved.push(id), lifetimeSeconds: 30 * 86_400 };

    expect(await removeUnusedRegistrations(deps, t0 + 29 * day)).toEqual([]);
    expect(await removeUnusedRegistrations(deps, t0 + 36 * day)).toEqual(['never-used', 'used-long-ago']);
    expect(tokensRemoved).toEqual(['never-used', 'used-long-ago']);
    expect((await records.list('client')).map((r) => r.id)).toEqual(['used-lately', 'with-token']);
    expect(await removeUnusedRegistrations(deps, t0 + 56 * day)).toEqual(['used-lately']);
    expect((await records.list('client')).map((r) => r.id)).toEqual(['with-token']);
  });
});
