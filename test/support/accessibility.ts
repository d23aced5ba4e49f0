/**
 * Accessibility checks shared by the browser tests of the device page and the sign-in pages:
 * axe-core injected into the page, and the WCAG 2.x contrast ratio of computed colours
 * (SC 1.4.11, non-text contrast: 3:1 for focus rings, control borders and the error notice).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * A fresh profile that lets the test inject axe: the pages' CSP (no scripts, or one hashed line)
 * would refuse it otherwise. JavaScript stays on: playwright cannot evaluate anything in a
 * context without it. `locale` sets the browser's Accept-Language.
 */
export function axeContext(browser: Browser, options: { locale?: string } = {}): Promise<BrowserContext> {
  return browser.newContext({ bypassCSP: true, ...options });
}

/** axe-core's WCAG 2.x A/AA rules and best practices; the serious and critical findings, readable. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const results = await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } })`) as {
    passes: unknown[];
    violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>;
  };
  // A check that ran no rule would pass anything.
  expect(results.passes.length).toBeGreaterThan(10);
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** WCAG 2.x relative luminance contrast of two computed `rgb()` colours. */
export function contrast(a: string, b: string): number {
  const luminance = (rgb: string) => {
    const [r, g, bl] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
      const v = Number(c) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

// These functions run in the page (serialized, no closure); the test's tsconfig has no DOM types.
type Window = { getComputedStyle(el: unknown): { getPropertyValue(name: string): string }; document: { activeElement: unknown } };

/** The computed value of a CSS property of the first element `selector` finds. */
export function computedStyle(page: Page, selector: string, property: string): Promise<string> {
  return page.locator(selector).first().evaluate((el, p) => (globalThis as unknown as Window).getComputedStyle(el).getPropertyValue(p), property);
}

/**
 * Tabs until `selector` has the focus, as a keyboard user does: that is when `:focus-visible`
 * (and so the focus ring) applies. Fails if it is not reached within `maxTabs` presses.
 */
export async function tabTo(page: Page, selector: string, maxTabs = 8): Promise<void> {
  const target = page.locator(selector).first();
  const focused = () => target.evaluate((el) => el === (globalThis as unknown as Window).document.activeElement);
  for (let i = 0; i < maxTabs && !(await focused()); i++) await page.keyboard.press('Tab');
  expect(await target.evaluate((el) => el.matches(':focus-visible')), `${selector} reached with Tab`).toBe(true);
}

/**
 * The focus ring of `selector`, reached with the keyboard: drawn solid, with a gap
 * (outline-offset) on `background`, so it must stand out from that at 3:1 or more.
 */
export async function expectFocusRing(page: Page, selector: string, background: string): Promise<void> {
  await tabTo(page, selector);
  expect(await computedStyle(page, selector, 'outline-style'), `outline-style of ${selector}`).toBe('solid');
  const ring = await computedStyle(page, selector, 'outline-color');
  expect(contrast(ring, background), `focus ring ${ring} of ${selector} on ${background}`).toBeGreaterThanOrEqual(3);
}

/** The border of `selector` against `background` (what is around it) and against its own fill. */
export async function expectBorder(page: Page, selector: string, background: string): Promise<void> {
  const border = await computedStyle(page, selector, 'border-top-color');
  expect(contrast(border, background), `border ${border} of ${selector} on ${background}`).toBeGreaterThanOrEqual(3);
  const fill = await computedStyle(page, selector, 'background-color');
  expect(contrast(border, fill), `border ${border} of ${selector} on its own ${fill}`).toBeGreaterThanOrEqual(3);
}
