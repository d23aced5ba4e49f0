import { describe, expect, it } from 'vitest';
import { createEventService } from '../../src/events/event-service.js';
import { createLogEventSink } from '../../src/events/log-event-sink.js';
import type { RaisedEvent, EventSink } from '../../src/events/service-event.js';
import type { Logger } from '../../src/sdk/contracts.js';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent };

function recording(types?: EventSink['types']): EventSink & { seen: string[] } {
  const seen: string[] = [];
  return { seen, ...(types ? { types } : {}), handle: (e: RaisedEvent) => void seen.push(e.type) };
}

/** A logger that keeps each line's level and message. */
function linesLogger(): { lines: Array<[string, string | undefined]>; logger: Logger } {
  const lines: Array<[string, string | undefined]> = [];
  const logger: Logger = {
    ...silent,
    debug: (_o, m) => void lines.push(['debug', m]),
    info: (_o, m) => void lines.push(['info', m]),
    warn: (_o, m) => void lines.push(['warn', m]),
    child: () => logger,
  };
  return { lines, logger };
}

const issued = { type: 'token.issued', clientId: 'c', grantType: 'client_credentials', subject: 'c', scopes: ['a'] } as const;
const failed = { type: 'token.failed', clientId: 'c', grantType: 'password', error: 'invalid_grant' } as const;

describe('event service', () => {
  it('hands a sink without types every event, and a typed sink only its types', () => {
    const all = recording();
    const failures = recording(['token.failed']);
    const events = createEventService(silent);
    events.attach([failures, all]);
    events.raise(issued);
    events.raise(failed);
    expect(all.seen).toEqual(['token.issued', 'token.failed']);
    expect(failures.seen).toEqual(['token.failed']);
  });

  it('stamps time and request id', () => {
    const got: RaisedEvent[] = [];
    const events = createEventService(silent, () => Date.UTC(2026, 10, 23));
    events.attach([{ handle: (e) => void got.push(e) }]);
    events.raise(issued, 'req-1');
    expect(got[0]).toMatchObject({ ...issued, time: '2026-11-23T00:00:00.000Z', requestId: 'req-1' });
  });

  it('stamps each event with its own millisecond, the same text within one, and freezes it', () => {
    const got: RaisedEvent[] = [];
    let now = Date.UTC(2026, 10, 23);
    const events = createEventService(silent, () => now);
    events.attach([{ handle: (e) => void got.push(e) }]);
    events.raise(issued, 'req-1');
    events.raise(failed);
    now += 1;
    events.raise(issued, 'req-2');
    expect(got.map((e) => [e.time, e.requestId])).toEqual([
      ['2026-11-23T00:00:00.000Z', 'req-1'],
      ['2026-11-23T00:00:00.000Z', undefined],
      ['2026-11-23T00:00:00.001Z', 'req-2'],
    ]);
    expect(got[1]).not.toHaveProperty('requestId');
    expect(got.every((e) => Object.isFrozen(e))).toBe(true);
  });

  it('keeps going when a sink throws or rejects, and logs it', async () => {
    const warned: unknown[] = [];
    const logger: Logger = { ...silent, warn: (o) => void warned.push(o) };
    const after = recording();
    const events = createEventService(logger);
    events.attach([{ handle: () => { throw new Error('boom'); } }, { handle: () => Promise.reject(new Error('later')) }, after]);
    events.raise(issued);
    await new Promise((r) => setImmediate(r));
    expect(after.seen).toEqual(['token.issued']);
    expect(warned).toHaveLength(2);
  });
});

describe('log event sink', () => {
  it('asks only for failures when the log level hides info', () => {
    expect(createLogEventSink({ logger: silent, config: { logLevel: 'warn' } }).types).toEqual([
      'token.failed', 'client.authentication_failed', 'api.authentication_failed', 'user.sign_in_failed',
      // The alarms of issue 19: a disabled client or an expired secret still in use.
      'client.disabled_used', 'client.expired_secret_used', 'api.disabled_used', 'api.expired_secret_used',
      // Issue 37: an application that was never told of a sign-out.
      'logout.failed',
    ]);
    expect(createLogEventSink({ logger: silent, config: { logLevel: 'info' } }).types).toBeUndefined();
  });

  it('writes failures at warn and the rest at info', () => {
    const { lines, logger } = linesLogger();
    const sink = createLogEventSink({ logger, config: { logLevel: 'info' } });
    void sink.handle({ ...issued, time: 't' });
    void sink.handle({ ...failed, time: 't' });
    expect(lines).toEqual([['info', 'token.issued'], ['warn', 'token.failed']]);
  });

  it('writes the steps of a request whose outcome has its own line at debug', () => {
    const { lines, logger } = linesLogger();
    const sink = createLogEventSink({ logger, config: { logLevel: 'info' } });
    void sink.handle({ type: 'client.authenticated', clientId: 'web', method: 'client_secret_basic', endpoint: 'token', time: 't' });
    void sink.handle({ type: 'api.authenticated', apiResource: 'api1', method: 'client_secret_basic', time: 't' });
    void sink.handle({ type: 'code.redeemed', clientId: 'web', subject: '1001', time: 't' });
    void sink.handle({ ...issued, time: 't' });
    expect(lines).toEqual([['debug', 'client.authenticated'], ['debug', 'api.authenticated'], ['debug', 'code.redeemed'], ['info', 'token.issued']]);
  });
});
