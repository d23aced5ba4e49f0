/**
 * GET /: a small page that says what is running here and where to go next, for the person who
 * opens the service's address in a browser (it used to answer a JSON "Not found"). Rendered
 * once at start-up; it names nothing a visitor could not read from discovery.
 */
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { paths } from '../../endpoints/urls.js';
import { html, SafeHtml } from '../../pages/html.js';

const css = 'body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}code{font-size:.9em}a{color:#0b57d0}';
const cssHash = `'sha256-${createHash('sha256').update(css).digest('base64')}'`;

export function homePage(issuer: string): Middleware {
  const body = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc token service</title>
<style>${new SafeHtml(css)}</style>
</head>
<body>
<main>
<h1>svc token service</h1>
<p>An OAuth 2.0 and OpenID Connect token service. Issuer: <code>${issuer}</code></p>
<ul>
<li><a href="${paths.discovery}">OpenID Connect discovery</a> (<code>${paths.discovery}</code>)</li>
<li><a href="${paths.oauthMetadata}">OAuth 2.0 authorization server metadata</a></li>
<li><a href="${paths.jwks}">Public signing keys (JWKS)</a></li>
</ul>
</main>
</body>
</html>
`.value;
  return (ctx) => {
    ctx.set('Content-Type', 'text/html; charset=utf-8');
    ctx.set('Content-Security-Policy', `default-src 'none'; style-src ${cssHash}; frame-ancestors 'none'; base-uri 'none'`);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = body;
  };
}
