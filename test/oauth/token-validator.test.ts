import { describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../../src/config/schema.js';
import type { KeyRing } from '../../src/oauth/keys/key-ring.js';
import { newHandle } from '../../src/oauth/handles.js';
import { createTokenValidator } from '../../src/oauth/token-validator.js';
import { createMemoryStore } from '../../src/store/memory-store.js';

const now = 1_800_000_000_000;
const clock = { now: () => now };

async function validatorWith(handles: string[]) {
  const store = createMemoryStore(clock);
  for (const key of handles) {
    await store.add({
      key, type: 'reference_token', clientId: 'app', subjectId: undefined, sessionId: undefined,
      createdAt: now, expiresAt: now + 60_000, consumedAt: undefined, data: JSON.stringify({ client_id: 'app' }),
    });
  }
  // Reference handles never reach the config or the key ring.
  return createTokenValidator({ config: {} as ResolvedConfig, keyRing: {} as KeyRing, store, clock });
}

describe('createTokenValidator: reference handles', () => {
  it('validates the handles it issues, and the bare 43-character ones issued before the time prefix', async () => {
    const current = newHandle();
    const older = 'A'.repeat(21) + '_-' + 'z9'.repeat(10);
    const validator = await validatorWith([current, older]);

    expect(await validator.validateAccessToken(current)).toMatchObject({ active: true, format: 'reference', claims: { client_id: 'app' } });
    expect(await validator.validateAccessToken(older)).toMatchObject({ active: true, format: 'reference' });
  });

  it('does not look up strings of another shape', async () => {
    const current = newHandle();
    const validator = await validatorWith([current]);

    for (const token of [current.toUpperCase(), current.slice(1), `${current}x`, current.replace(/^./, 'g')]) {
      expect(await validator.validateAccessToken(token)).toEqual({ active: false, reason: 'not a token this service issues' });
    }
  });
});
