import { createHash } from 'node:crypto';

/**
 * The page's only style sheet, inline; the CSP allows exactly this text by its hash.
 *
 * WCAG 2.2 SC 1.4.11 (non-text contrast): what identifies a control or its state stands at 3:1
 * or more against what is next to it. Ratios computed with the WCAG relative-luminance formula
 * (test/e2e/device-browser.test.ts and sign-in-browser.test.ts measure them again in Chromium):
 * - focus ring `--focus` #2357d9 (3px, 2px off the control): 6.11 on the white card, 5.55 on
 *   the page's #f2f4f7 (was #9db7f5: 2.00);
 * - input and secondary-button borders `--control-border` #767f8c: 4.05 on white, 3.68 on
 *   #f2f4f7 (was `--border` #d6dae1: 1.40);
 * - the error notice's border `--warn` #b35c00: 4.72 on the white card, 4.37 on its own
 *   #fff5e6 (was #e0a040: 2.26 / 2.10).
 * `--border` stays for decoration only (the card, the scope list, the legal links' rule), which 1.4.11 does not cover.
 * A deployment's `pages.colors` override `--accent`, `--focus`, `--bg` and `--text` after this
 * sheet (`branding.ts`); `validate-branding.ts` holds hex colours to the same ratios.
 */
export const css = `
:root{--accent:#2357d9;--accent-dark:#1a45b0;--text:#1b2230;--muted:#5d6675;--border:#d6dae1;--control-border:#767f8c;--focus:#2357d9;--bg:#f2f4f7;--warn-bg:#fff5e6;--warn:#b35c00}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--text);background:var(--bg)}
main{max-width:27rem;margin:3rem auto;padding:2rem 1.75rem;background:#fff;border:1px solid var(--border);border-radius:14px;box-shadow:0 2px 10px rgba(20,30,50,.06)}
@media (max-width:30rem){main{margin:0;min-height:100vh;border:0;border-radius:0;box-shadow:none;padding:1.5rem 1.25rem}}
.brand{font-size:.8rem;font-weight:600;letter-spacing:.08em;text-transform:uppercase;color:var(--muted);margin:0 0 1.25rem}
h1{font-size:1.45rem;line-height:1.25;margin:0 0 .75rem}
h2{font-size:1rem;margin:1.5rem 0 .5rem}
p{margin:0 0 1rem}
label{display:block;font-weight:600;margin:1rem 0 .35rem}
input[type=text],input[type=password]{display:block;width:100%;padding:.7rem .85rem;font:inherit;color:inherit;border:1px solid var(--control-border);border-radius:8px;background:#fff}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
input.code-input{font:600 1.5rem/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.15em;text-align:center;text-transform:uppercase}
.actions{display:flex;gap:.75rem;margin:1.5rem 0 1.25rem}
main>:last-child,main>form:last-child>:last-child{margin-bottom:0}
.actions button{flex:1}
button{font:inherit;font-weight:600;padding:.75rem 1.25rem;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button:hover{background:var(--accent-dark)}
button.secondary{background:#fff;color:var(--text);border-color:var(--control-border)}
button.secondary:hover{background:var(--bg)}
button.link{padding:0;border:0;background:none;color:var(--accent);font-weight:400;text-decoration:underline}
.notice{padding:.75rem 1rem;border-radius:8px;background:var(--warn-bg);border:1px solid var(--warn);margin:0 0 1rem}
.code{font:600 1.1rem ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.1em;background:var(--bg);border:1px solid var(--border);padding:.1rem .45rem;border-radius:6px;white-space:nowrap}
ul.scopes{list-style:none;padding:0;margin:0 0 1rem;border:1px solid var(--border);border-radius:8px}
ul.scopes li{padding:.7rem .95rem;border-top:1px solid var(--border)}
ul.scopes li:first-child{border-top:0}
.scope-name{display:block;font:.8rem ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:var(--muted)}
.muted{color:var(--muted);font-size:.92rem}
.qr{display:block;width:100%;max-width:240px;height:auto;margin:0 auto 1rem;background:#fff}
.secret{font:600 1rem ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.05em;overflow-wrap:anywhere;background:var(--bg);border:1px solid var(--border);padding:.4rem .6rem;border-radius:6px}
ol.recovery-codes{font:600 1rem ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;padding-left:2.2rem;margin:0 0 1rem}
a{color:var(--accent)}
.brand.product{display:flex;align-items:center;gap:.6rem;font-size:1.05rem;letter-spacing:0;text-transform:none;color:var(--text)}
.brand .logo{display:block;height:2rem;width:auto;max-width:10rem}
.legal{margin:1.5rem 0 0;padding-top:1rem;border-top:1px solid var(--border);font-size:.85rem;color:var(--muted)}
.legal a{margin-right:1rem}
`.trim();

export const cssHash = `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
