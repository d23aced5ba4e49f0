/**
 * Starts the OpenTelemetry SDK for the service when tracing is on. The SDK and the exporter are
 * imported here, on demand, so a service without tracing never loads them.
 */
import type { Tracer, TracerProvider } from '@opentelemetry/api';
import type { TracingSettings } from '../config/schema.js';

export interface StartedTracing {
  readonly tracer: Tracer;
  /** Sends the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

const instrumentation = 'svc-token-service';

/** Spans from a provider the caller made (tests: the SDK's in-memory exporter). */
export function tracerFrom(provider: TracerProvider, version: string): Tracer {
  return provider.getTracer(instrumentation, version);
}

export async function startTracing(settings: TracingSettings, version: string): Promise<StartedTracing> {
  const [api, sdk, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
  ]);
  const exporter = settings.exporter === 'console'
    ? new sdk.ConsoleSpanExporter()
    : new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(settings.endpoint ? { url: settings.endpoint } : {});
  const provider = new sdk.BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': version }),
    // Batches (OTEL_BSP_* tune them), so a request never waits for the exporter.
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  // Child spans find their parent through the async context; a context manager or propagator
  // already set in the process (by the embedding program) is kept.
  const manager = new AsyncLocalStorageContextManager().enable();
  if (!api.context.setGlobalContextManager(manager)) manager.disable();
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    tracer: tracerFrom(provider, version),
    shutdown: () => provider.shutdown(),
  };
}
