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
  const warnings: string[] = [];
  config.clients.forEach((client, i) => {
    const secrets = client.clientSecrets;
    if (secrets.length === 0) return;
    const at = `clients[${i}] "${client.clientId}"`;
    const live = secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now);
    if (live.length === 0) {
      warnings.push(`${at}: every secret has expired, so the client cannot authenticate; add a new secret`);
      return;
    }
    // Only worth saying when nothing outlives the window: a rotation with an overlap is fine.
    if (live.some((s) => s.expiresAt === undefined || s.expiresAt > now + expiryWarningDays * day)) return;
    const last = Math.max(...live.map((s) => s.expiresAt!));
    const days = Math.max(0, Math.ceil((last - now) / day));
    warnings.push(
      `${at}: its last secret expires ${new Date(last).toISOString()} (in ${days} day${days === 1 ? '' : 's'}); add a new secret before then`,
    );
  });
  return warnings;
}
