// Issue 21's question, measured: would signing RS256 access tokens in a pool of worker threads
// take one process further on a multi-core machine, compared with signing inline and with
// node:cluster? The server is the floor (bare Koa, the same form POST) plus one RS256 signature
// of an access-token-sized JWT per request, so the three modes differ only in where the
// signature runs:
//
//   inline         one process, the signature on the event loop (the service by default)
//   cluster <n>    n processes (node:cluster, one port), each signing inline (`workers: n`)
//   pool <n>       one process signing on n worker threads with the service's own pool
//                  (src/oauth/keys/signing-threads.ts, what `signing.threads` runs)
//
// Usage: node test/bench/signing-pool.mjs <port> <mode> [n]; prints "listening <url>" when ready.
import cluster from 'node:cluster';
import { createPrivateKey, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { createServer } from 'node:http';

const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

const [portArg, mode = 'inline', countArg = '2'] = process.argv.slice(2);
const port = Number(portArg ?? 0);
const count = Number(countArg);
if (!['inline', 'cluster', 'pool'].includes(mode) || !(count >= 1)) {
  process.stderr.write('usage: signing-pool.mjs <port> inline|cluster|pool [n]\n');
  process.exit(2);
}
const pem = process.env.SIGNING_POOL_KEY ?? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });

if (mode === 'cluster' && cluster.isPrimary) {
  cluster.setupPrimary({ args: [String(port), 'inline'] });
  let ready = 0;
  for (let i = 0; i < count; i++) {
    cluster.fork({ SIGNING_POOL_KEY: pem, SIGNING_POOL_QUIET: '1' }).once('listening', (address) => {
      if (++ready === count) process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
    });
  }
  process.once('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers)) worker.kill('SIGTERM');
    cluster.disconnect(() => process.exit(0));
  });
} else {
  await serve({ port, signer: mode === 'pool' ? await poolSigner(pem, count) : inlineSigner(pem) });
}

function inlineSigner(pem) {
  const key = createPrivateKey(pem);
  return { sign: async (input) => sign('sha256', Buffer.from(input), key).toString('base64url'), close: () => {} };
}

// The service's own pool (src/oauth/keys/signing-threads.ts), loaded as the service loads its sources.
async function poolSigner(pem, threads) {
  const { createJiti } = await import('jiti');
  const { createSigningThreads } = await createJiti(import.meta.url).import('../../src/oauth/keys/signing-threads.ts');
  const pool = createSigningThreads({ threads, logger: { error: (fields, message) => process.stderr.write(`${message}\n`) } });
  pool.add('bench', 'RS256', createPrivateKey(pem));
  return { sign: (input) => pool.sign('bench', input), close: () => pool.close() };
}

async function serve({ port, signer }) {
  const [{ default: Koa }, { default: Router }, { bodyParser }] = await Promise.all([import('koa'), import('@koa/router'), import('@koa/bodyparser')]);
  const header = encode({ alg: 'RS256', typ: 'at+jwt', kid: 'bench' });
  const router = new Router();
  router.post('/connect/token', bodyParser({ enableTypes: ['form'] }), async (ctx) => {
    if (ctx.request.body.grant_type !== 'client_credentials') {
      ctx.status = 400;
      ctx.body = { error: 'unsupported_grant_type' };
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const input = `${header}.${encode({ iss: 'http://127.0.0.1', sub: 'm2m', aud: 'api1', client_id: 'm2m', scope: 'api1.read', iat: now, exp: now + 3600, jti: randomUUID() })}`;
    const signature = await signer.sign(input);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { access_token: `${input}.${signature}`, token_type: 'Bearer', expires_in: 3600, scope: 'api1.read' };
  });
  const app = new Koa();
  app.use(router.routes());
  const server = createServer(app.callback());
  server.keepAliveTimeout = 5_000;
  server.listen(port, '127.0.0.1', () => {
    if (!process.env.SIGNING_POOL_QUIET) process.stdout.write(`listening http://127.0.0.1:${server.address().port}\n`);
  });
  process.once('SIGTERM', () => {
    server.close(async () => {
      await signer.close();
      process.exit(0);
    });
    server.closeIdleConnections();
  });
}
