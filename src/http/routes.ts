/**
 * Maps HTTP onto the endpoints. Endpoints take and return plain values; this file is where
 * they meet Koa.
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { paths } from '../endpoints/urls.js';
import type { FormRequest } from '../endpoints/form-request.js';
import type { UserInfoRequest } from '../endpoints/userinfo.js';
import { InvalidRequest } from '../oauth/errors.js';
import { dpopHeaderOf, formBodyReader, formOf, readForm, type FormLimits } from './read-form.js';
import { notImplementedJson } from './not-implemented.js';
import { clientCertificateOf } from './client-certificate.js';
import { jsonBodyReader } from './read-json.js';
import type { IntrospectionAnswer } from '../endpoints/introspection.js';
import type { RegistrationAnswer, RegistrationEndpoint, RegistrationRequest } from '../endpoints/registration.js';

export interface Endpoints {
  token(request: FormRequest): Promise<object>;
  /** `accept`: the Accept header, which may ask for RFC 9701's JWT answer. */
  introspection?(request: FormRequest, accept?: string): Promise<IntrospectionAnswer>;
  revocation?(request: FormRequest): Promise<object | undefined>;
  deviceAuthorization?(request: FormRequest): Promise<object>;
  /** The device flow's verification page (HTML, GET and POST). */
  devicePage?: Middleware;
  /** The password change page (HTML, GET and POST). */
  accountPage?: Middleware;
  /** Issue 34: `/account/password-reset`, only with `smtp` configured. */
  passwordResetPage?: Middleware;
  /** Issue 35: `/account/second-factor`. */
  secondFactorPage?: Middleware;
  /** GET/POST /connect/authorize and the sign-in and consent pages' POSTs (HTML). */
  signIn?: { readonly authorize: Middleware; readonly interaction: Middleware; readonly endSession: Middleware; readonly endSessionReturn?: Middleware; readonly callback?: Middleware };
  /** POST /connect/par (RFC 9126), answered 201. */
  par?(request: FormRequest): Promise<object>;
  /** GET/POST /connect/userinfo (OIDC Core §5.3). */
  userInfo?(request: UserInfoRequest): Promise<object>;
  /** The DPoP nonce to announce on the token, PAR and UserInfo endpoints' answers, when nonces are required (RFC 9449 §8.2). */
  dpopNonce?(): Promise<string | undefined>;
  /** CORS for the endpoints browser-based clients call. */
  cors?: Middleware;
  /** The discovery document, serialized; a function, as stored clients can change what it lists. */
  discoveryJson: () => string;
  jwksJson(): string;
  /** GET /: a page naming the service and linking discovery. */
  homePage?: Middleware;
  /** GET /assets/<name>: the deployment's logo and style sheet files (`pages` in the config). */
  pageAssets?: Middleware;
  /** POST /connect/register and GET/PUT/DELETE on a client's URI (RFC 7591, RFC 7592), when enabled. */
  registration?: RegistrationEndpoint;
}

function sendJson(ctx: Context, json: string, cache: 'no-store' | 'public'): void {
  // The header itself rather than `ctx.type`, which looks the type up on every response.
  ctx.set('Content-Type', 'application/json; charset=utf-8');
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

export function createRouter(endpoints: Endpoints, limits: FormLimits): Router {
  const router = new Router();
  const form = readForm(limits);
  const post = (path: string, handler: ((r: FormRequest) => Promise<object | undefined>) | undefined, browser = false): void => {
    if (!handler) return;
    const cors = browser ? endpoints.cors : undefined;
    if (cors) router.options(path, cors);
    router.post(path, ...(cors ? [cors] : []), form, async (ctx) => {
      const result = await handler(formOf(ctx));
      sendJson(ctx, result === undefined ? '' : JSON.stringify(result), 'no-store');
      if (result === undefined) ctx.status = 200;
      if (path === paths.token) await announceNonce(ctx);
    });
  };
  // A fresh nonce with each answer to a DPoP request saves the client a `use_dpop_nonce` round trip later.
  const announceNonce = async (ctx: Context): Promise<void> => {
    if (endpoints.dpopNonce === undefined || ctx.req.headers.dpop === undefined) return;
    const nonce = await endpoints.dpopNonce();
    if (nonce !== undefined) ctx.set('DPoP-Nonce', nonce);
  };

  post(paths.token, endpoints.token, true);
  const introspection = endpoints.introspection;
  if (introspection) {
    router.post(paths.introspection, form, async (ctx) => {
      const answer = await introspection(formOf(ctx), ctx.get('accept') || undefined);
      if (answer.kind === 'json') return sendJson(ctx, JSON.stringify(answer.body), 'no-store');
      // RFC 9701 §5: the JWT itself is the body, under its own media type.
      ctx.set('Content-Type', 'application/token-introspection+jwt');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = answer.jwt;
    });
  }
  post(paths.revocation, endpoints.revocation, true);
  post(paths.deviceAuthorization, endpoints.deviceAuthorization, true);
  if (endpoints.devicePage) router.get(paths.devicePage, endpoints.devicePage).post(paths.devicePage, endpoints.devicePage);
  if (endpoints.accountPage) router.get(paths.accountPassword, endpoints.accountPage).post(paths.accountPassword, endpoints.accountPage);
  if (endpoints.passwordResetPage) router.get(paths.accountPasswordReset, endpoints.passwordResetPage).post(paths.accountPasswordReset, endpoints.passwordResetPage);
  if (endpoints.secondFactorPage) router.get(paths.accountSecondFactor, endpoints.secondFactorPage).post(paths.accountSecondFactor, endpoints.secondFactorPage);
  if (endpoints.signIn) {
    router.get(paths.authorize, endpoints.signIn.authorize).post(paths.authorize, endpoints.signIn.authorize);
    router.post(paths.signIn, endpoints.signIn.interaction);
    router.get(paths.endSession, endpoints.signIn.endSession).post(paths.endSession, endpoints.signIn.endSession);
    if (endpoints.signIn.endSessionReturn) router.get(paths.endSessionCallback, endpoints.signIn.endSessionReturn);
    const callback = endpoints.signIn.callback;
    if (callback) router.get(paths.signInCallback, callback).post(paths.signInCallback, callback);
  }

  const par = endpoints.par;
  if (par) {
    router.post(paths.par, form, async (ctx) => {
      sendJson(ctx, JSON.stringify(await par(formOf(ctx))), 'no-store');
      ctx.status = 201;
      await announceNonce(ctx);
    });
  }
  const userInfo = endpoints.userInfo;
  if (userInfo) {
    const cors = endpoints.cors;
    if (cors) router.options(paths.userinfo, cors);
    router.get(paths.userinfo, ...(cors ? [cors] : []), async (ctx) => {
      sendJson(ctx, JSON.stringify(await userInfo({
        authorization: ctx.get('authorization') || undefined, params: new Map(), method: 'GET', dpop: dpopHeaderOf(ctx), clientCertificate: clientCertificateOf(ctx),
      })), 'no-store');
      await announceNonce(ctx);
    });
    // A POST may carry the token in the header and no body at all (OIDC Core §5.3.1).
    const readBody = formBodyReader(limits);
    router.post(paths.userinfo, ...(cors ? [cors] : []), async (ctx) => {
      const params = ctx.request.is('application/x-www-form-urlencoded') ? await readBody(ctx) : new Map<string, string>();
      sendJson(ctx, JSON.stringify(await userInfo({
        authorization: ctx.get('authorization') || undefined, params, method: 'POST', dpop: dpopHeaderOf(ctx), clientCertificate: clientCertificateOf(ctx),
      })), 'no-store');
      await announceNonce(ctx);
    });
  }

  const registration = endpoints.registration;
  if (registration) {
    const readJson = jsonBodyReader(limits);
    const answer = (ctx: Context, { status, body }: RegistrationAnswer): void => {
      if (body === undefined) {
        ctx.set('Cache-Control', 'no-store');
        ctx.status = status;
        return;
      }
      sendJson(ctx, JSON.stringify(body), 'no-store');
      ctx.status = status;
    };
    const request = async (ctx: Context, withBody: boolean): Promise<RegistrationRequest> => ({
      authorization: ctx.get('authorization') || undefined,
      remoteAddress: ctx.ip,
      ...(withBody ? { body: await readJson(ctx) } : {}),
      ...(ctx.params.clientId === undefined ? {} : { clientId: String(ctx.params.clientId) }),
    });
    router.post(paths.register, async (ctx) => answer(ctx, await registration.register(await request(ctx, true))));
    const clientPath = `${paths.register}/:clientId`;
    router.get(clientPath, async (ctx) => answer(ctx, await registration.read(await request(ctx, false))));
    router.put(clientPath, async (ctx) => answer(ctx, await registration.update(await request(ctx, true))));
    router.delete(clientPath, async (ctx) => answer(ctx, await registration.remove(await request(ctx, false))));
  }

  if (endpoints.homePage) router.get('/', endpoints.homePage);
  if (endpoints.pageAssets) router.get(`${paths.assets}/:name`, endpoints.pageAssets);
  router.get(paths.discovery, (ctx) => sendJson(ctx, endpoints.discoveryJson(), 'public'));
  router.get(paths.oauthMetadata, (ctx) => sendJson(ctx, endpoints.discoveryJson(), 'public'));
  router.get(paths.jwks, (ctx) => {
    sendJson(ctx, endpoints.jwksJson(), 'public');
    ctx.type = 'application/jwk-set+json';
  });
  return router;
}

const bareStatusText: Record<number, string> = { 404: 'Not found.', 405: 'Method not allowed.' };

/**
 * Unknown paths (404) and wrong methods (405, with the `Allow` header the router set) answer
 * in JSON too; a method the router implements nowhere (501) gets a plain JSON body, no OAuth error.
 */
export async function jsonForBareStatuses(ctx: Context, next: () => Promise<unknown>): Promise<void> {
  await next();
  if (ctx.status === 501 && ctx.body === undefined) {
    // The router sets `Allow` to the path's methods, which is empty for an unknown path.
    if (ctx.response.get('Allow') === '') ctx.remove('Allow');
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = notImplementedJson;
    return;
  }
  const text = bareStatusText[ctx.status];
  if (text !== undefined && ctx.body === undefined) throw new InvalidRequest(text, { status: ctx.status });
}
