/**
 * Debian's Chromium driven by playwright-core, for the browser tests of the session attacks
 * (cross-site logout, cookie tossing). `hostRules` maps test host names to loopback
 * (`--host-resolver-rules`), so a test can serve the service and an attacker's site under names
 * of its choosing: another site, or a sibling subdomain.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const chromiumPath = '/usr/bin/chromium';

/** Skip (outside CI) when the machine has no Chromium; CI installs it and must run the test. */
export const chromiumMissing = !existsSync(chromiumPath) && process.env.CI !== 'true';

export function launchChromium(options: { hostRules?: string } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ...(options.hostRules ? [`--host-resolver-rules=${options.hostRules}`] : []),
    ],
  });
}
