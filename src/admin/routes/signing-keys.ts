/**
 * The signing keys the service manages in its store (`svc keys list`): list and read them,
 * rotate now (a successor published at once, signing after `signing.propagationTime`, so every
 * relying party's cached JWKS has it before the first token it signs; the key it replaces then
 * retires as in the scheduled rotation, `key-rotation.ts`), and retire one at once (a key
 * believed compromised: out of the JWKS now, so tokens it signed stop verifying; when it was the
 * key signing, a new one signs at once). Keys from files or the environment are the config's.
 */
import { z } from '../../config/fields.js';
import type { Clock, Logger } from '../../sdk/contracts.js';
import type { KeyRing } from '../../oauth/keys/key-ring.js';
import type { KeyProtector } from '../../oauth/keys/key-protection.js';
import { newestActive, newManagedKey } from '../../oauth/keys/key-rotation.js';
import type { SigningKeyRecord, Store } from '../../store/store.js';
import { checkIfMatch, etagOf } from '../etag.js';
import type { oneAtATime } from '../one-at-a-time.js';
import { defineOperation, type AdminOperation } from '../operation.js';
import { pageOfList, pageOf as readPage, pageQuery } from '../pagination.js';
import { AdminProblem, notFound } from '../problem.js';
import { defined, isoTime, isoTimeOrUndefined, pageOf, time } from '../schemas.js';

const keyView = z.strictObject({
  kid: z.string(),
  alg: z.string(),
  state: z.enum(['pending', 'active', 'replaced', 'retired']).describe('`pending`: published, signing from `activatesAt`; `active`: signing; `replaced`: published until `retiresAt` so tokens it signed still verify; `retired`: out of the JWKS.'),
  createdAt: time,
  activatesAt: time,
  retiresAt: time.optional(),
  protection: z.string().describe('How the private key is kept in the store (which key-encryption key, or none).'),
}).meta({ id: 'SigningKey' });

const params = z.strictObject({ kid: z.string().min(1).max(200) });

export function signingKeyRoutes(deps: {
  store: Store; keyRing: KeyRing; protector: KeyProtector; clock: Clock; logger: Logger;
  propagationTime: number; serialize: ReturnType<typeof oneAtATime>;
}): AdminOperation[] {
  const { store, clock } = deps;

  function viewOf(r: SigningKeyRecord, all: readonly SigningKeyRecord[], now: number) {
    const state = r.retiresAt !== undefined && r.retiresAt <= now ? 'retired'
      : r.activatesAt > now ? 'pending'
        : newestActive(all.filter((k) => k.alg === r.alg), now)?.kid === r.kid ? 'active' : 'replaced';
    return defined({
      kid: r.kid, alg: r.alg, state, createdAt: isoTime(r.createdAt), activatesAt: isoTime(r.activatesAt),
      retiresAt: isoTimeOrUndefined(r.retiresAt), protection: deps.protector.protectionOf(r),
    });
  }
  const tagOf = (r: SigningKeyRecord) => etagOf({ kid: r.kid, alg: r.alg, createdAt: r.createdAt, activatesAt: r.activatesAt, retiresAt: r.retiresAt });
  const sortKey = (r: SigningKeyRecord) => `${String(r.createdAt).padStart(16, '0')}:${r.kid}`;

  async function existing(kid: string): Promise<{ key: SigningKeyRecord; all: SigningKeyRecord[] }> {
    const all = await store.listSigningKeys();
    const key = all.find((r) => r.kid === kid);
    if (!key) throw notFound(`Signing key "${kid}"`);
    return { key, all };
  }

  return [
    defineOperation({
      operationId: 'list-signing-keys', method: 'get', path: '/signing-keys', tag: 'signing-keys', access: 'read',
      summary: 'Lists the signing keys in the store, oldest first.',
      query: pageQuery,
      responses: { 200: { description: 'A page of signing keys.', schema: pageOf(keyView, 'The keys (never their private parts).') } },
      async handle({ query }) {
        const all = await store.listSigningKeys();
        const now = clock.now();
        const page = pageOfList(all, sortKey, readPage(query));
        return { status: 200, body: defined({ items: page.items.map((r) => viewOf(r, all, now)), next: page.next }) };
      },
    }),
    defineOperation({
      operationId: 'get-signing-key', method: 'get', path: '/signing-keys/{kid}', tag: 'signing-keys', access: 'read',
      summary: 'Reads one signing key.', params,
      responses: { 200: { description: 'The key.', schema: keyView, etag: true } },
      async handle({ params: p }) {
        const { key, all } = await existing(p.kid);
        return { status: 200, body: viewOf(key, all, clock.now()), etag: tagOf(key) };
      },
    }),
    defineOperation({
      operationId: 'rotate-signing-keys', method: 'post', path: '/signing-keys/rotation', tag: 'signing-keys', access: 'write',
      summary: 'Rotates now: a successor for each managed algorithm (or the one named), published at once, signing after `signing.propagationTime`.',
      body: z.strictObject({ alg: z.string().min(1).max(20).optional().describe('Only this algorithm; default every one the store holds keys of.') }),
      responses: { 201: { description: 'The new keys.', schema: z.strictObject({ items: z.array(keyView) }) } },
      async handle({ body }) {
        return deps.serialize('signing-keys', async () => {
          const stored = await store.listSigningKeys();
          const managed = [...new Set(stored.map((r) => r.alg))];
          if (body.alg !== undefined && !managed.includes(body.alg)) {
            throw new AdminProblem(409, `The store holds no key of ${body.alg}: the service manages keys only for the algorithms no configured key (signing.keys) covers (${managed.join(', ') || 'none'}).`);
          }
          const now = clock.now();
          const made: SigningKeyRecord[] = [];
          for (const alg of body.alg === undefined ? managed : [body.alg]) {
            made.push(await newManagedKey({ store, clock, logger: deps.logger, protector: deps.protector }, alg, now + deps.propagationTime * 1000));
          }
          await deps.keyRing.refresh();
          const all = await store.listSigningKeys();
          return { status: 201, body: { items: made.map((r) => viewOf(r, all, clock.now())) } };
        });
      },
    }),
    defineOperation({
      operationId: 'retire-signing-key', method: 'delete', path: '/signing-keys/{kid}', tag: 'signing-keys', access: 'write', ifMatch: true,
      summary: 'Retires a key now: out of the JWKS, so tokens it signed no longer verify; needs If-Match.',
      params,
      responses: { 200: { description: 'The retired key.', schema: keyView, etag: true } },
      async handle({ params: p, ifMatch }) {
        return deps.serialize('signing-keys', async () => {
          const { key } = await existing(p.kid);
          checkIfMatch(ifMatch!, tagOf(key));
          const now = clock.now();
          if (key.retiresAt === undefined || key.retiresAt > now) await store.updateSigningKey(key.kid, { retiresAt: now });
          await deps.keyRing.refresh();
          const after = await store.listSigningKeys();
          const retired = after.find((r) => r.kid === key.kid) ?? { ...key, retiresAt: now };
          return { status: 200, body: viewOf(retired, after, clock.now()), etag: tagOf(retired) };
        });
      },
    }),
  ];
}
