/** `SecondFactorStore` in process memory: the same semantics as the SQL one, for tests and `store: "memory"`. */
import type { PasskeyRecord, RecoveryCodeRecord, SecondFactorStore, TotpRecord } from './second-factor-records.js';
import { DuplicateKeyError } from './store.js';

export function createMemorySecondFactors(): SecondFactorStore {
  const totp = new Map<string, TotpRecord>();
  const recovery = new Map<string, RecoveryCodeRecord[]>();
  const passkeys = new Map<string, PasskeyRecord[]>();
  return {
    async get(subjectId) {
      const t = totp.get(subjectId);
      return { totp: t && { ...t }, recoveryCodes: (recovery.get(subjectId) ?? []).map((r) => ({ ...r })), passkeys: (passkeys.get(subjectId) ?? []).map((p) => structuredClone(p)) };
    },
    async putTotp(subjectId, secret, now) {
      totp.set(subjectId, { secret, createdAt: now, confirmedAt: undefined, lastStep: undefined });
    },
    async acceptTotpStep(subjectId, secret, step, now, confirm) {
      const t = totp.get(subjectId);
      if (!t || t.secret !== secret || (t.confirmedAt === undefined) !== confirm) return false;
      if (t.lastStep !== undefined && t.lastStep >= step) return false;
      totp.set(subjectId, { ...t, lastStep: step, confirmedAt: t.confirmedAt ?? now });
      return true;
    },
    async putRecoveryCodes(subjectId, hashes, now) {
      recovery.set(subjectId, hashes.map((hash) => ({ hash, createdAt: now, usedAt: undefined })));
    },
    async spendRecoveryCode(subjectId, hash, now) {
      const codes = recovery.get(subjectId) ?? [];
      const i = codes.findIndex((c) => c.hash === hash && c.usedAt === undefined);
      if (i < 0) return false;
      codes[i] = { ...codes[i]!, usedAt: now };
      return true;
    },
    async addPasskey(subjectId, passkey) {
      const list = passkeys.get(subjectId) ?? [];
      if (list.some((p) => p.credentialId === passkey.credentialId)) throw new DuplicateKeyError();
      passkeys.set(subjectId, [...list, structuredClone({ ...passkey, lastUsedAt: undefined })]);
    },
    async usePasskey(subjectId, credentialId, from, to, now) {
      const list = passkeys.get(subjectId) ?? [];
      const i = list.findIndex((p) => p.credentialId === credentialId && p.counter === from);
      if (i < 0) return false;
      list[i] = { ...list[i]!, counter: to, lastUsedAt: now };
      return true;
    },
    async renamePasskey(subjectId, credentialId, name) {
      const list = passkeys.get(subjectId) ?? [];
      const i = list.findIndex((p) => p.credentialId === credentialId);
      if (i < 0) return false;
      list[i] = { ...list[i]!, name };
      return true;
    },
    async removePasskey(subjectId, credentialId) {
      const list = passkeys.get(subjectId) ?? [];
      const keep = list.filter((p) => p.credentialId !== credentialId);
      passkeys.set(subjectId, keep);
      return keep.length < list.length;
    },
    async listTotpSecrets() {
      return [...totp].map(([subjectId, t]) => ({ subjectId, secret: t.secret }));
    },
    async resealTotp(subjectId, from, to) {
      const t = totp.get(subjectId);
      if (!t || t.secret !== from) return false;
      totp.set(subjectId, { ...t, secret: to });
      return true;
    },
    async remove(subjectId, kind) {
      let removed = 0;
      if ((kind === undefined || kind === 'totp') && totp.delete(subjectId)) removed++;
      if (kind === undefined || kind === 'recovery') {
        removed += recovery.get(subjectId)?.length ?? 0;
        recovery.delete(subjectId);
      }
      if (kind === undefined || kind === 'passkey') {
        removed += passkeys.get(subjectId)?.length ?? 0;
        passkeys.delete(subjectId);
      }
      return removed;
    },
  };
}
