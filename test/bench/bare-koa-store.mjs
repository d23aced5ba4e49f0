// The store floor (issue 40): the bare-Koa floor (bare-koa.mjs) plus exactly the store calls a
// durable row makes per request, on the service's own store (test/bench/store-floor.ts), and
// nothing else. One server per store answers all four rows by what the request is:
//
//   grant_type=authorization_code   the code redemption's calls (the code must be seeded first)
//   grant_type=refresh_token        the refresh rotation's calls (the token must be seeded first)
//   client_credentials, no DPoP     the reference token's insert
//   client_credentials + DPoP       the used proof's `jti` record
//
// POST /bench/seed {"kind":"code"|"refresh","client_id":…,"count":n} stores n codes or refresh
// tokens (with their families) and answers their handles, before a round, outside the timed load.
// The store's TypeScript is loaded through jiti, as bin/svc.mjs loads the service.
// Usage: node test/bench/bare-koa-store.mjs <port> <store> (sqlite:<path> or postgres://…, as `store`);
// prints "listening <url>" when ready.
import { createJiti } from 'jiti';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import { listen } from './bare-koa-listen.mjs';

const { openStoreFloor } = await createJiti(import.meta.url, { interopDefault: true, extensions: ['.ts', '.js'] }).import('./store-floor.ts');

const port = Number(process.argv[2] ?? 0);
const spec = process.argv[3];
if (!spec) {
  process.stderr.write('usage: bare-koa-store.mjs <port> <sqlite:path | postgres://…>\n');
  process.exit(2);
}
// A relative sqlite: path is taken from the working directory (the repository's, as every bench server's).
const floor = await openStoreFloor(spec, process.cwd());
const issuer = `http://127.0.0.1:${port}`;
const answer = (fields) => JSON.stringify({ access_token: 'x'.repeat(32), token_type: 'Bearer', expires_in: 3600, scope: 'api1.read', ...fields });
const invalidGrant = '{"error":"invalid_grant"}';

const router = new Router();
router.post('/connect/token', bodyParser({ enableTypes: ['form'] }), async (ctx) => {
  const body = ctx.request.body;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  let answered;
  switch (body.grant_type) {
    case 'authorization_code': {
      const refreshToken = await floor.redeemCode(String(body.code));
      answered = refreshToken && answer({ refresh_token: refreshToken });
      break;
    }
    case 'refresh_token': {
      const refreshToken = await floor.rotateRefresh(String(body.refresh_token));
      answered = refreshToken && answer({ refresh_token: refreshToken });
      break;
    }
    case 'client_credentials': {
      const proof = ctx.get('dpop');
      if (proof) answered = (await floor.recordProofJti(proof)) && answer({ token_type: 'DPoP' });
      else answered = answer({ access_token: await floor.issueReference(issuer, 'm2m-reference') });
      break;
    }
  }
  if (answered) ctx.body = answered;
  else {
    ctx.status = 400;
    ctx.body = invalidGrant;
  }
});
router.post('/bench/seed', bodyParser({ enableTypes: ['json'] }), async (ctx) => {
  const { kind, client_id: clientId, count } = ctx.request.body;
  if ((kind !== 'code' && kind !== 'refresh') || typeof clientId !== 'string' || !(count >= 0 && count <= 100_000)) {
    ctx.status = 400;
    ctx.body = { error: 'invalid_request' };
    return;
  }
  ctx.body = { handles: await floor.seed(kind, clientId, count) };
});

listen(router, port, () => floor.close());
