/**
 * Prometheus metrics (prom-client): requests by route and status, latency, tokens issued by
 * grant type, authentication failures, the audience form of client assertions, store errors, the
 * expired-record backlog. Counting tokens and failures is done by listening to events, so the
 * endpoints do not know metrics exist; the backlog is set by the sweeper once per
 * `cleanupInterval`, so a request or a scrape never queries the database for it.
 */
import type { Context, Next } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventSink } from '../events/service-event.js';
import { logLinesDropped } from '../log/log-destination.js';
import { shareWithPrimary } from './cluster-metrics.js';

export interface Metrics {
  readonly registry: Registry;
  /** Koa middleware timing every request. */
  measure(ctx: Context, next: Next): Promise<void>;
  /** Event sink counting tokens and authentication failures. */
  readonly sink: EventSink;
  storeError(): void;
  /** What one tick of the expired-record sweeper found (`expired`, by grant type) and deleted. */
  swept(result: { readonly expired: Readonly<Record<string, number>> | undefined; readonly removed: number }): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'svc_' });
  const requests = new Counter({
    name: 'svc_http_requests_total', help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'], registers: [registry],
  });
  const duration = new Histogram({
    name: 'svc_http_request_duration_seconds', help: 'HTTP request latency by route',
    labelNames: ['route'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [registry],
  });
  const tokens = new Counter({
    name: 'svc_tokens_issued_total', help: 'Tokens issued by grant type', labelNames: ['grant_type'], registers: [registry],
  });
  const authFailures = new Counter({
    name: 'svc_authentication_failures_total', help: 'Failed client and API authentications by endpoint and method',
    labelNames: ['endpoint', 'method'], registers: [registry],
  });
  // Label values are bounded: an event carries assertionAudience only when the assertion's
  // signature verified with a configured client's key, so a caller cannot invent client ids here.
  const assertionAudiences = new Counter({
    name: 'svc_client_assertion_audience_total',
    help: 'Client assertions (private_key_jwt) whose signature verified, by client, aud form (issuer, token_endpoint, other) and outcome',
    labelNames: ['client_id', 'audience', 'outcome'], registers: [registry],
  });
  const storeErrors = new Counter({ name: 'svc_store_errors_total', help: 'Store operations that failed', registers: [registry] });
  // `kind` is a grant type the service or a loaded plugin writes, never a value from a request.
  const expiredRows = new Gauge({
    name: 'svc_store_expired_rows', help: 'Expired records still stored when the latest sweep began, by kind (grant type)',
    labelNames: ['kind'], registers: [registry],
  });
  const sweptKinds = new Set<string>();
  const expiredRemoved = new Counter({
    name: 'svc_store_expired_rows_removed_total', help: 'Expired records this node deleted', registers: [registry],
  });
  let droppedSeen = 0;
  new Counter({
    name: 'svc_log_lines_dropped_total', help: 'Log lines dropped because standard output did not keep up', registers: [registry],
    collect() {
      const dropped = logLinesDropped();
      if (dropped > droppedSeen) this.inc(dropped - droppedSeen);
      droppedSeen = dropped;
    },
  });
  shareWithPrimary(registry);

  return {
    registry,
    async measure(ctx, next) {
      const start = process.hrtime.bigint();
      try {
        await next();
      } finally {
        // Unmatched paths share one label so a scanner cannot blow up the label space.
        const route = (ctx as Context & { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
        requests.inc({ route, method: ctx.method, status: String(ctx.status) });
        duration.observe({ route }, Number(process.hrtime.bigint() - start) / 1e9);
      }
    },
    sink: {
      types: ['token.issued', 'client.authenticated', 'client.authentication_failed', 'api.authentication_failed'],
      handle(event) {
        if (event.type === 'token.issued') tokens.inc({ grant_type: event.grantType });
        else if (event.type === 'client.authenticated') {
          if (event.assertionAudience) assertionAudiences.inc({ client_id: event.clientId, audience: event.assertionAudience, outcome: 'accepted' });
        } else if (event.type === 'client.authentication_failed') {
          authFailures.inc({ endpoint: event.endpoint, method: event.method });
          if (event.assertionAudience && event.clientId !== undefined) {
            assertionAudiences.inc({ client_id: event.clientId, audience: event.assertionAudience, outcome: 'rejected' });
          }
        }
        else if (event.type === 'api.authentication_failed') authFailures.inc({ endpoint: 'introspection', method: event.method });
      },
    },
    storeError: () => storeErrors.inc(),
    swept({ expired, removed }) {
      // A kind seen before and absent now has no backlog: it reads 0, not its last value. Not
      // counted (the count failed): the gauge keeps its last value.
      if (expired) {
        for (const kind of Object.keys(expired)) sweptKinds.add(kind);
        for (const kind of sweptKinds) expiredRows.set({ kind }, expired[kind] ?? 0);
      }
      expiredRemoved.inc(removed);
    },
  };
}
