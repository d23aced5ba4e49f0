/**
 * The reset decisions without a server (`src/users/password-reset.ts`): a mail server that
 * refuses the mail is an event and a log line with its reply code only; a link's record holds
 * no usable token; a disabled user's link is refused.
 */
import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/oauth/password-hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { createPasswordReset, passwordResetRecordType } from '../../src/users/password-reset.js';
import { createPasswordChange } from '../../src/users/password-change.js';
import { resolvePasswordRules } from '../../src/config/password-rules.js';
import { memoryWindowLimit } from '../../src/throttling/rate-limits.js';
import type { ServiceEvent } from '../../src/events/service-event.js';
import type { OutgoingMail } from '../../src/mail/mailer.js';

const clock = { now: () => Date.now() };
const cheap = { ln: 4, r: 8, p: 1 };
const rules = resolvePasswordRules({});

async function setUp(send: (mail: OutgoingMail) => Promise<void>) {
  const store = createMemoryStore(clock);
  await store.users.add({ subjectId: 's1', username: 'mia', email: 'mia@example.com', emailVerified: true, claims: {}, disabled: false, passwordHash: await hashPassword('mia-password-1', cheap), createdAt: clock.now() });
  // Signs in only at an upstream provider: no password to reset.
  await store.users.add({ subjectId: 's2', username: 'noa', email: 'noa@example.com', emailVerified: true, claims: {}, disabled: false, passwordHash: undefined, createdAt: clock.now() });
  const events: ServiceEvent[] = [];
  const logged: Array<{ obj: unknown; msg: string }> = [];
  const log = (obj: unknown, msg: string) => void logged.push({ obj, msg });
  const logger = { info: log, warn: log, error: log, debug: log, child: () => logger } as never;
  const reset = createPasswordReset({
    users: () => store.users, store, mailer: { send, close: () => {} },
    change: createPasswordChange({ users: () => store.users, rules, clock, cost: cheap }), rules,
    lifetimeSeconds: 1800, linkBase: 'https://id.example.com/account/password-reset',
    perAddress: memoryWindowLimit({ limit: 10, window: 3600 }), perAccount: memoryWindowLimit({ limit: 3, window: 3600 }),
    clock, logger, events: { raise: (event) => void events.push(event) },
  });
  return { store, reset, events, logged };
}

const mail = { subject: 'Reset', text: (u: string, link: string) => `${u} ${link}` };

describe('password reset', () => {
  it('a refused mail is an event with the reply code and a log line without the mail', async () => {
    let text = '';
    const { reset, events, logged } = await setUp(async (m) => {
      text = m.text;
      throw Object.assign(new Error(`550 rejected: ${m.text}`), { responseCode: 550 });
    });
    expect(await reset.request('mia', '192.0.2.1', mail)).toEqual({ kind: 'accepted', minutes: 30 });
    await reset.settled();
    expect(events).toContainEqual({ type: 'password_reset.sent', subject: 's1', delivered: false, reason: 'smtp 550' });
    const token = new URL(text.split(' ')[1]!).searchParams.get('token')!;
    expect(JSON.stringify(logged)).not.toContain(token);
  });

  it('stores the link hashed, and refuses it once the user is disabled', async () => {
    let link = '';
    const { store, reset } = await setUp(async (m) => void (link = m.text.split(' ')[1]!));
    await reset.request('mia@EXAMPLE.com', undefined, mail);
    await reset.settled();
    const token = new URL(link).searchParams.get('token')!;
    const [record] = await store.listGrants({ type: passwordResetRecordType }, { now: clock.now(), limit: 10 });
    expect(record).toMatchObject({ subjectId: 's1' });
    expect(record!.key).not.toContain(token.slice(12));
    expect((await reset.check(token))?.username).toBe('mia');
    await store.users.update('s1', { disabled: true }, clock.now());
    expect(await reset.check(token)).toBeUndefined();
    expect(await reset.reset(token, 'a good new password')).toEqual({ kind: 'unusable' });
  });

  it('mails no link to a user without a password (one who signs in only upstream)', async () => {
    const sent: OutgoingMail[] = [];
    const { reset, events } = await setUp(async (m) => void sent.push(m));
    expect(await reset.request('noa@example.com', undefined, mail)).toEqual({ kind: 'accepted', minutes: 30 });
    await reset.settled();
    expect(sent).toEqual([]);
    expect(events).toEqual([{ type: 'password_reset.requested', outcome: 'no_account' }]);
  });
});
