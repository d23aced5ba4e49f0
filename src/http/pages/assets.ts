/**
 * GET /assets/<name>: the deployment's logo and style sheet files (`pages.logo`,
 * `pages.stylesheet`), read at start-up (`src/pages/branding.ts`). Their names change with
 * their content, so they are cached for a year. An SVG opened on its own runs no script and
 * loads nothing: it is served sandboxed under its own Content-Security-Policy.
 */
import type { Middleware } from 'koa';
import { assetsPath, type Branding } from '../../pages/branding.js';

export function pageAssets(branding: Pick<Branding, 'assets'>): Middleware {
  return (ctx) => {
    const asset = branding.assets.get(`${assetsPath}/${String(ctx.params.name)}`);
    if (!asset) return;
    ctx.set({
      'Content-Type': asset.contentType,
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
    ctx.body = asset.body;
  };
}
