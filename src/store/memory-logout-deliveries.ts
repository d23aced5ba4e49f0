/** `LogoutDeliveryStore` in process memory: the same semantics as the SQL one, for tests and `store: "memory"`. */
import { randomUUID } from 'node:crypto';
import type { ClaimedDelivery, LogoutDelivery, LogoutDeliveryStore } from './logout-deliveries.js';

export function createMemoryLogoutDeliveries(): LogoutDeliveryStore {
  const rows = new Map<string, LogoutDelivery & { claim: string | undefined }>();
  return {
    async enqueue(deliveries) {
      for (const d of deliveries) rows.set(d.id, { ...d, attempts: 0, claim: undefined });
    },
    // Synchronous from the first read to the last write: nothing else runs in between.
    async claim(now, leaseMs, limit) {
      const due = [...rows.values()].filter((r) => r.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt).slice(0, limit);
      return due.map((row): ClaimedDelivery => {
        const claimed = { ...row, claim: randomUUID(), attempts: row.attempts + 1, dueAt: now + leaseMs };
        rows.set(row.id, claimed);
        return { ...claimed, leaseUntil: claimed.dueAt };
      });
    },
    async finish(id, claim) {
      if (rows.get(id)?.claim !== claim) return false;
      return rows.delete(id);
    },
    async retryAt(id, claim, dueAt) {
      const row = rows.get(id);
      if (row?.claim !== claim) return false;
      rows.set(id, { ...row, dueAt, claim: undefined });
      return true;
    },
    async count() {
      return rows.size;
    },
  };
}
