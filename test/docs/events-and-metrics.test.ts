/**
 * docs/reference/events-and-metrics.md lists every event type and every metric the code
 * declares: an event or metric added without its row fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const page = read('docs/reference/events-and-metrics.md');

/** The `type` of every member of the `ServiceEvent` union. */
const events = read('src/sdk/events.ts');
const union = events.slice(events.indexOf('export type ServiceEvent ='), events.indexOf('export type ServiceEventType'));
const eventTypes = [...union.matchAll(/\btype: '([a-z_.]+)'/g)].map((m) => m[1]!);
/** The name of every metric `src/http/metrics.ts` declares. */
const metricNames = [...read('src/http/metrics.ts').matchAll(/name: '(svc_[a-z_]+)'/g)].map((m) => m[1]!);

describe('the events and metrics reference', () => {
  it('finds the declarations it checks', () => {
    expect(eventTypes).toEqual(expect.arrayContaining(['token.issued', 'client.expired_secret_used', 'client.authentication_failed', 'admin.request', 'plugin.loaded']));
    expect(eventTypes).toHaveLength(union.split('\n  | ').length - 1);
    expect(metricNames).toEqual(expect.arrayContaining(['svc_http_requests_total', 'svc_store_expired_rows']));
  });

  it.each(eventTypes)('has a row for the event %s', (type) => {
    expect(page).toContain(`| \`${type}\` |`);
  });

  it.each(metricNames)('has a row for the metric %s', (name) => {
    expect(page).toContain(`| \`${name}\` |`);
  });
});
