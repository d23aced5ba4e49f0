// Issue 21's question, measured: would signing RS256 access tokens in a pool of worker threads
// take one process further on a multi-core machine, compared with signing inline and with
// node:cluster? The server is the floor (bare Koa, the same form POST) plus one RS256 signature
// of an access-token-sized JWT per request, so the three modes differ only in where the
// signature runs:
//
//   inline         one process, the signature on the event loop (what the service does today)
//   cluster <n>    n processes (node:cluster, one port), each signing inline (`workers: n`)
//   pool <n>       one process, the signatures of one event-loop turn sent to n worker threads
//                  as one message per thread, answers resolved when the thread posts them back
//
// Usage: node test/bench/signing-pool.mjs <port> <mode> [n]; prints "listening <url>" when ready.
import cluster from 'node:cluster';
import { createPrivateKey, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { createServer } from 'node:http';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

if (!isMainThread) {
  // A signing thread: each message is one turn's signing inputs for this thread.
  const key = createPrivateKey(workerData.pem);
  parentPort.on('message', ({ batch, inputs }) => {
    parentPort.postMessage({ batch, signatures: inputs.map((input) => sign('sha256', Buffer.from(input), key).toString('base64url')) });
  });
} else {
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
    await serve({ port, signer: mode === 'pool' ? poolSigner(pem, count) : inlineSigner(pem) });
  }
}

function inlineSigner(pem) {
  const key = createPrivateKey(pem);
  return { sign: async (input) => sign('sha256', Buffer.from(input), key).toString('base64url'), close: () => {} };
}

function poolSigner(pem, threads) {
  const workers = Array.from({ length: threads }, () => new Worker(new URL(import.meta.url), { workerData: { pem } }));
  const waiting = new Map(); // batch number → the callers' resolvers, in input order
  let nextBatch = 0;
  let queued = [];
  let next = 0;
  for (const worker of workers) {
    worker.on('message', ({ batch, signatures }) => {
      const resolvers = waiting.get(batch);
      waiting.delete(batch);
      signatures.forEach((signature, i) => resolvers[i](signature));
    });
    worker.unref();
  }
  const flush = () => {
    const turn = queued;
    queued = [];
    // Split the turn's inputs evenly over the threads, one message each.
    const per = Math.ceil(turn.length / threads);
    for (let from = 0; from < turn.length; from += per) {
      const part = turn.slice(from, from + per);
      const batch = nextBatch++;
      waiting.set(batch, part.map((p) => p.resolve));
      workers[next].postMessage({ batch, inputs: part.map((p) => p.input) });
      next = (next + 1) % threads;
    }
  };
  return {
    sign: (input) =>
      new Promise((resolve) => {
        if (queued.length === 0) setImmediate(flush);
        queued.push({ input, resolve });
      }),
    close: () => Promise.all(workers.map((w) => w.terminate())),
  };
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
