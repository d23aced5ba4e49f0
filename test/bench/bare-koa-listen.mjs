// The bare-Koa bench servers' start and stop, alike so their rows compare: the router's routes on
// plain Koa, on 127.0.0.1:<port> with the keep-alive the service uses; "listening <url>" on
// stdout when ready (what processes.ts waits for). On SIGTERM the server closes, then `release`
// frees what it holds (a pool, a store), then the process exits.
import { createServer } from 'node:http';
import Koa from 'koa';

export function listen(router, port, release = async () => {}) {
  const app = new Koa();
  app.use(router.routes());
  const server = createServer(app.callback());
  server.keepAliveTimeout = 5_000;
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening http://127.0.0.1:${server.address().port}\n`);
  });
  process.once('SIGTERM', () => {
    server.close(() => release().then(() => process.exit(0)));
    server.closeIdleConnections();
  });
}
