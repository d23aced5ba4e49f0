/** What the second-factor pages show (issue 35), in the sign-in flow and on the account page, as plain data. */

/** Why a code form is shown again. */
export type SecondFactorNoticeId = 'code-missing' | 'code-wrong' | 'too-many-codes' | 'passkey-wrong' | 'passkey-added' | 'passkey-renamed' | 'passkey-removed';

/** Notices that say something went right: announced politely (`role="status"`), not as an alert. */
export const doneNotices: ReadonlySet<SecondFactorNoticeId> = new Set(['passkey-added', 'passkey-renamed', 'passkey-removed']);

/** A new TOTP secret to scan or type in; `qrSvg` is the QR code of its `otpauth://` URI (`qr-code.ts`). */
export interface EnrolmentPart {
  readonly secret: string;
  readonly qrSvg: string;
}
