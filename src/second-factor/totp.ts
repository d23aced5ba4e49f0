/**
 * One-time codes (TOTP, RFC 6238) through `otpauth`: SHA-1, six digits, 30-second steps, the
 * parameters every authenticator app reads from an `otpauth://` URI. A code is accepted for the
 * current step and one step either side (RFC 6238 §5.2 recommends at most one step of network
 * delay), and the step it matched is returned so the caller can refuse it a second time.
 */
import { Secret, TOTP } from 'otpauth';

export const totpPeriodSeconds = 30;
const digits = 6;
/** 160 bits, the HMAC-SHA-1 key length RFC 4226 §4 recommends. */
const secretBytes = 20;

/** A new secret, base32 (what the person types when they cannot scan the QR code). */
export function newTotpSecret(): string {
  return new Secret({ size: secretBytes }).base32;
}

/** The `otpauth://totp/...` URI an authenticator app scans (Key Uri Format). */
export function totpUri(secret: string, issuer: string, account: string): string {
  return new TOTP({ issuer, label: account, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits, period: totpPeriodSeconds }).toString();
}

/** The time step `code` is valid for at `nowMs` (one step either side), or `undefined`. */
export function matchingStep(secret: string, code: string, nowMs: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits, period: totpPeriodSeconds });
  const delta = totp.validate({ token: code, timestamp: nowMs, window: 1 });
  return delta === null ? undefined : totp.counter({ timestamp: nowMs }) + delta;
}
