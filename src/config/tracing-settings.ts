/**
 * Whether tracing is on and where spans go, from the config's `tracing` and the standard
 * OpenTelemetry environment variables (OpenTelemetry specification, "Environment Variable
 * Specification"): on when the config says so, or when `OTEL_TRACES_EXPORTER` names an exporter
 * or an `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT` is set; `OTEL_SDK_DISABLED=true` turns it off.
 */
import { BootError } from './boot-error.js';
import { defaultServiceName } from './schema.js';
import type { TracingConfig, TracingSettings } from './schema.js';

const exporters: readonly string[] = ['otlp', 'console', 'none'];

export function tracingSettings(config: TracingConfig | undefined, env: NodeJS.ProcessEnv): TracingSettings {
  const named = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() || undefined;
  // The variable is a list; the service sends to one exporter, the first.
  const exporter = named?.split(',')[0]?.trim();
  if (exporter !== undefined && !exporters.includes(exporter)) {
    throw new BootError('CONFIG_INVALID', `OTEL_TRACES_EXPORTER: unsupported exporter "${exporter}" (supported: ${exporters.join(', ')})`);
  }
  const fromEnvironment = exporter !== undefined
    ? exporter !== 'none'
    : Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  return Object.freeze({
    enabled: !disabled && (config?.enabled ?? fromEnvironment),
    exporter: exporter === 'console' ? 'console' : 'otlp',
    endpoint: config?.endpoint,
    serviceName: config?.serviceName ?? (env.OTEL_SERVICE_NAME || defaultServiceName),
  });
}
