/**
 * The enrolment page's QR code as inline SVG (`qrcode`), so the page needs no script, no image
 * request and nothing in its Content-Security-Policy beyond what it has. Labelled for screen
 * readers; the secret is printed beside it for typing in.
 */
import QRCode from 'qrcode';

/** The SVG document of `text`'s QR code; the page adds its label in the reader's language (`second-factor-parts.ts`). */
export async function qrCodeSvg(text: string): Promise<string> {
  return (await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })).trim();
}
