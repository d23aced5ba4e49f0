/**
 * Operator endpoints: liveness, readiness (the store answers) and Prometheus metrics.
 */
import type Router from '@koa/router';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Store } from '../store/store.js';
import { metricsText } from './cluster-metrics.js';
import type { Metrics } from './metrics.js';

const readinessTimeoutMs = 2000;

export function addOperationRoutes(router: Router, deps: {
  store: Store;
  metrics: Metrics | undefined;
  metricsToken: string | undefined;
}): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        deps.store.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), readinessTimeoutMs);
        }),
      ]);
      ctx.body = { status: 'ready' };
    } catch {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', reason: 'the store does not answer' };
    } finally {
      clearTimeout(timer);
    }
  });
  const { metrics } = deps;
  if (!metrics) return;
  const expected = deps.metricsToken === undefined ? undefined : digest(deps.metricsToken);
  router.get('/metrics', async (ctx) => {
    // RFC 7235 §2.1: the scheme is case-insensitive.
    const given = /^Bearer +(.*)$/i.exec(ctx.get('authorization'))?.[1] ?? '';
    if (expected && !timingSafeEqual(digest(given), expected)) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      ctx.body = { error: 'invalid_token', error_description: 'A valid bearer token is required for metrics.' };
      return;
    }
    try {
      const text = await metricsText(metrics.registry);
      ctx.type = metrics.registry.contentType;
      ctx.body = text;
    } catch {
      // Only in cluster mode: the primary could not collect every worker's metrics in time.
      ctx.status = 503;
      ctx.body = { status: 'unavailable', reason: 'the workers\' metrics could not be collected' };
    }
  });
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
