/**
 * Grant-family ids in both formats (issue 40): the previous release's plain ids and the
 * time-ordered ones a contracted database gets. Each is read, keyed and revoked as its format
 * says, whichever a node writes.
 */
import { describe, expect, it } from 'vitest';
import { hash } from 'node:crypto';
import { familyKey, familyOfSpentGrant, isTimeOrderedFamily, newFamilyId, revokeFamily } from '../../src/oauth/grant-family.js';
import { newHandle } from '../../src/oauth/handles.js';
import { hashKey } from '../../src/store/hash-key.js';
import { timeOrderedKey } from '../../src/sdk/store-keys.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import type { PersistedGrant } from '../../src/store/store.js';

const at = Date.UTC(2026, 10, 27, 12, 0, 0);
const hexOf = (ms: number) => ms.toString(16).padStart(12, '0');
/** What the previous release (91b5d83) computes for a spent grant's handle. */
const previousRelease = (handle: string) => hash('sha256', `svc-grant-family:${handle}`, 'base64url');

describe('newFamilyId', () => {
  it('time-ordered: 12 hex digits of the time, then 128 random bits', () => {
    const id = newFamilyId(true, at);
    expect(id).toMatch(/^[0-9a-f]{12}[\w-]{22}$/);
    expect(id.slice(0, 12)).toBe(hexOf(at));
    expect(newFamilyId(true, at)).not.toBe(id);
    expect(isTimeOrderedFamily(id)).toBe(true);
  });

  it('plain: a UUID, as the previous release makes', () => {
    const id = newFamilyId(false);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(isTimeOrderedFamily(id)).toBe(false);
  });
});

describe('familyOfSpentGrant', () => {
  const code = newHandle();

  it('plain: the digest of the handle, exactly what the previous release computes', () => {
    expect(familyOfSpentGrant(code, false)).toBe(previousRelease(code));
    expect(isTimeOrderedFamily(familyOfSpentGrant(code, false))).toBe(false);
  });

  it('time-ordered: the handle\'s time in front of the same digest, so the plain id is its tail', () => {
    const id = familyOfSpentGrant(code, true);
    expect(id).toBe(code.slice(0, 12) + previousRelease(code));
    expect(isTimeOrderedFamily(id)).toBe(true);
  });

  it('a handle without a time prefix (made before it) keeps the plain id', () => {
    const old = 'a'.repeat(43);
    expect(familyOfSpentGrant(old, true)).toBe(previousRelease(old));
  });
});

describe('familyKey', () => {
  it('plain ids keep the previous release\'s key, stored as a bare digest', () => {
    for (const id of [newFamilyId(false), familyOfSpentGrant(newHandle(), false)]) {
      expect(familyKey(id)).toBe(`family:${id}`);
      expect(hashKey(familyKey(id))).toMatch(/^[\w-]{43}$/);
    }
  });

  it('time-ordered ids keep their time in front of the stored key', () => {
    for (const id of [newFamilyId(true, at), familyOfSpentGrant(newHandle(), true)]) {
      expect(familyKey(id)).toBe(`${id.slice(0, 12)}.family:${id}`);
      expect(familyKey(id)).toBe(timeOrderedKey(Number.parseInt(id.slice(0, 12), 16), `family:${id}`));
      expect(hashKey(familyKey(id))).toMatch(new RegExp(`^${id.slice(0, 12)}[\\w-]{43}$`));
    }
  });
});

describe('revokeFamily', () => {
  const clock = { now: () => at };
  const token = (key: string, sessionId: string): PersistedGrant => ({
    key, type: 'reference_token', clientId: 'web', subjectId: 'alice', sessionId, createdAt: at, expiresAt: at + 60_000, consumedAt: undefined, data: '{}',
  });

  it('a time-ordered family of a spent grant takes its plain twin along, and nothing else', async () => {
    const store = createMemoryStore(clock);
    const code = newHandle();
    const other = newHandle();
    await store.add(token('new-node', familyOfSpentGrant(code, true)));
    // What a node of the previous release issued for the same code.
    await store.add(token('old-node', familyOfSpentGrant(code, false)));
    await store.add(token('another-code', familyOfSpentGrant(other, false)));
    expect(await revokeFamily(store, familyOfSpentGrant(code, true))).toBe(2);
    expect(await store.get('new-node')).toBeUndefined();
    expect(await store.get('old-node')).toBeUndefined();
    expect(await store.get('another-code')).toBeDefined();
  });

  it('a plain family is removed alone, as the previous release removes it', async () => {
    const store = createMemoryStore(clock);
    const code = newHandle();
    await store.add(token('old-node', familyOfSpentGrant(code, false)));
    await store.add(token('new-node', familyOfSpentGrant(code, true)));
    expect(await revokeFamily(store, familyOfSpentGrant(code, false))).toBe(1);
    expect(await store.get('new-node')).toBeDefined();
  });

  it('a random family of either format', async () => {
    const store = createMemoryStore(clock);
    for (const id of [newFamilyId(true, at), newFamilyId(false)]) {
      await store.add(token(`t-${id}`, id));
      expect(await revokeFamily(store, id)).toBe(1);
    }
  });
});
