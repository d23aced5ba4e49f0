/**
 * The spans the service makes, through `@opentelemetry/api` only. With tracing off (the default)
 * every helper just runs its function: no span object, no context switch, nothing on the hot
 * path. With tracing on, a request's server span (`requestSpan`) is the parent of the spans of
 * client authentication, the grant, token issuance, signing and the store calls it makes, and
 * each span carries the request id.
 *
 * Attribute values are names, ids and outcomes only (client id, grant type, route, status,
 * error code, store operation): never a parameter's value, a secret, a code, an assertion or a
 * token, and no exception text (a message could quote input). `test/tracing` checks this.
 */
import {
  context, createContextKey, INVALID_SPAN_CONTEXT, isSpanContextValid, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace,
  type Attributes, type Context, type Link, type Span, type Tracer,
} from '@opentelemetry/api';
import { isOAuthError } from '../sdk/errors.js';

export interface Tracing {
  readonly enabled: boolean;
  /** Runs `fn` in a child span of the active one; a throw ends the span as an error. */
  span<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T>;
  /** `span` for synchronous work (signing). */
  spanSync<T>(name: string, attributes: Attributes, fn: (span: Span) => T): T;
  /** Adds attributes to the active span (the request's, when no child span is open). */
  annotate(attributes: Attributes): void;
  /**
   * Runs a request in a server span of a trace of the service's own, sampled by the service's
   * sampler; a caller's W3C `traceparent` becomes a link, never the parent.
   */
  requestSpan<T>(request: RequestFacts, fn: (span: Span) => Promise<T>): Promise<T>;
}

export interface RequestFacts {
  readonly method: string;
  readonly requestId: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

const requestIdKey = createContextKey('svc.request_id');
/** One span that records nothing, handed to `fn` when tracing is off. */
const silentSpan = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

export const tracingOff: Tracing = Object.freeze({
  enabled: false,
  span: <T>(_name: string, _attributes: Attributes, fn: (span: Span) => Promise<T>) => fn(silentSpan),
  spanSync: <T>(_name: string, _attributes: Attributes, fn: (span: Span) => T) => fn(silentSpan),
  annotate: () => undefined,
  requestSpan: <T>(_request: RequestFacts, fn: (span: Span) => Promise<T>) => fn(silentSpan),
});

/** What a failure tells a span: its OAuth error code, or only the kind of error. */
export function markFailed(span: Span, err: unknown): void {
  const type = isOAuthError(err) ? err.code : err instanceof Error ? err.name : 'error';
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/**
 * The service's own context for a request. Its span is a root (`root: true`): the tracer's
 * sampler decides afresh and the trace id is the service's. A caller's `traceparent` is
 * anybody's to write: continuing it would let `...-00` hide a caller's requests (guessing
 * included) from the traces, and let callers pick the trace ids the service's spans land in.
 * What the caller sent is kept as a link (`callerLinks`), which is how OpenTelemetry relates a
 * trace to one from outside its trust boundary (trace API, "Links between spans").
 */
function requestContext(request: RequestFacts): Context {
  return context.active().setValue(requestIdKey, request.requestId);
}

/** The caller's span as a link, for correlation only; its sampled flag decides nothing here. */
function callerLinks(request: RequestFacts): Link[] {
  const caller = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, request.headers));
  return caller && isSpanContextValid(caller) ? [{ context: caller, attributes: { 'svc.link': 'traceparent' } }] : [];
}

export function createTracing(tracer: Tracer): Tracing {
  const withRequestId = (attributes: Attributes): Attributes => {
    const id = context.active().getValue(requestIdKey);
    return typeof id === 'string' ? { ...attributes, 'svc.request_id': id } : attributes;
  };
  return Object.freeze({
    enabled: true,
    span<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
      return tracer.startActiveSpan(name, { attributes: withRequestId(attributes) }, async (span) => {
        try {
          return await fn(span);
        } catch (err) {
          markFailed(span, err);
          throw err;
        } finally {
          span.end();
        }
      });
    },
    spanSync<T>(name: string, attributes: Attributes, fn: (span: Span) => T): T {
      return tracer.startActiveSpan(name, { attributes: withRequestId(attributes) }, (span) => {
        try {
          return fn(span);
        } catch (err) {
          markFailed(span, err);
          throw err;
        } finally {
          span.end();
        }
      });
    },
    annotate(attributes: Attributes): void {
      trace.getActiveSpan()?.setAttributes(attributes);
    },
    requestSpan<T>(request: RequestFacts, fn: (span: Span) => Promise<T>): Promise<T> {
      const attributes = { 'http.request.method': request.method, 'svc.request_id': request.requestId };
      return tracer.startActiveSpan(request.method, { kind: SpanKind.SERVER, attributes, root: true, links: callerLinks(request) }, requestContext(request), async (span) => {
        try {
          return await fn(span);
        } finally {
          span.end();
        }
      });
    },
  });
}
