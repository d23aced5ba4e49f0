/**
 * Maps HTTP onto the endpoints. Endpoints take and return plain values; this file is where
 * they meet Koa.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { paths } from '../endpoints/urls.js';
import type { FormRequest } from '../endpoints/form-request.js';
import { InvalidRequest } from '../oauth/errors.js';
import { formOf, readForm } from './read-form.js';

export interface Endpoints {
  token(request: FormRequest): Promise<object>;
  introspection?(request: FormRequest): Promise<object>;
  revocation?(request: FormRequest): Promise<object | undefined>;
  deviceAuthorization?(request: FormRequest): Promise<object>;
  discoveryJson: string;
  jwksJson(): string;
}

function sendJson(ctx: Context, json: string, cache: 'no-store' | 'public'): void {
  ctx.type = 'application/json';
  ctx.body = json;
  if (cache === 'no-store') {
    // RFC 6749 §5.1: token responses must not be cached.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
  } else {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
  }
}

export function createRouter(endpoints: Endpoints, limits: { bodyBytes: number; parameters: number }): Router {
  const router = new Router();
  const form = readForm(limits);
  const post = (path: string, handler: ((r: FormRequest) => Promise<object | undefined>) | undefined): void => {
    if (!handler) return;
    router.post(path, form, async (ctx) => {
      const result = await handler(formOf(ctx));
      sendJson(ctx, result === undefined ? '' : JSON.stringify(result), 'no-store');
      if (result === undefined) ctx.status = 200;
    });
  };

  post(paths.token, endpoints.token);
  post(paths.introspection, endpoints.introspection);
  post(paths.revocation, endpoints.revocation);
  post(paths.deviceAuthorization, endpoints.deviceAuthorization);

  router.get(paths.discovery, (ctx) => sendJson(ctx, endpoints.discoveryJson, 'public'));
  router.get(paths.oauthMetadata, (ctx) => sendJson(ctx, endpoints.discoveryJson, 'public'));
  router.get(paths.jwks, (ctx) => {
    sendJson(ctx, endpoints.jwksJson(), 'public');
    ctx.type = 'application/jwk-set+json';
  });
  return router;
}

/** Unknown paths and wrong methods answer in JSON too. */
export function methodAndPathErrors(router: Router) {
  return router.allowedMethods({
    throw: true,
    methodNotAllowed: () => new InvalidRequest('Method not allowed.', { status: 405 }),
    notImplemented: () => new InvalidRequest('Method not implemented.', { status: 501 }),
  });
}
