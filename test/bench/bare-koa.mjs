// The floor: bare Koa + @koa/router + @koa/bodyparser, reading the same form POST the token
// endpoint reads and answering a fixed JSON. Nothing built on Koa can be faster than this.
// Usage: node test/bench/bare-koa.mjs <port>; prints "listening <url>" when ready.
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { listen } from './bare-koa-listen.mjs';

const port = Number(process.argv[2] ?? 0);
const answer = JSON.stringify({ access_token: 'x'.repeat(32), token_type: 'Bearer', expires_in: 3600, scope: 'api1.read' });

const router = new Router();
router.post('/connect/token', bodyParser({ enableTypes: ['form'] }), (ctx) => {
  const { grant_type: grantType } = ctx.request.body;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = grantType === 'client_credentials' ? answer : '{"error":"unsupported_grant_type"}';
  if (grantType !== 'client_credentials') ctx.status = 400;
});

listen(router, port);
