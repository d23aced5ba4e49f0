/**
 * The enrolment page's QR code as inline SVG (`qrcode`), so the page needs no script, no image
 * request and nothing in its Content-Security-Policy beyond what it has. Labelled for screen
 * readers; the secret is printed beside it for typing in. The library loads at the first enrolment,
 * not with the service.
 */

/** The SVG document of `text`'s QR code; the page adds its label in the reader's language (`second-factor-parts.ts`). */
export async function qrCodeSvg(text: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return (await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })).trim();
}
