/**
 * Warnings about client secrets that have run out or soon will: the most common way a working
 * client stops authenticating overnight. `svc check-config` prints them; they never stop start-up
 * (an expired secret is simply not accepted, which may be what the operator wants).
 */
import type { ResolvedConfig } from './schema.js';

/** How far ahead an expiry is worth a warning. */
export const expiryWarningDays = 14;

const day = 86_400_000;

export function secretExpiryWarnings(config: ResolvedConfig, now: number): string[] {
  return config.clients.flatMap((client, i) => expiryWarning(`clients[${i}] "${client.clientId}"`, client.clientSecrets, now) ?? []);
}

/** The warning about one client's secrets (`at` names the client), if any is due. */
export function expiryWarning(at: string, secrets: ReadonlyArray<{ readonly expiresAt?: number | undefined }>, now: number): string | undefined {
  if (secrets.length === 0) return undefined;
  const live = secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now);
  if (live.length === 0) return `${at}: every secret has expired, so the client cannot authenticate; add a new secret`;
  // Only worth saying when nothing outlives the window: a rotation with an overlap is fine.
  if (live.some((s) => s.expiresAt === undefined || s.expiresAt > now + expiryWarningDays * day)) return undefined;
  const last = Math.max(...live.map((s) => s.expiresAt!));
  const days = Math.max(0, Math.ceil((last - now) / day));
  return `${at}: its last secret expires ${new Date(last).toISOString()} (in ${days} day${days === 1 ? '' : 's'}); add a new secret before then`;
}
