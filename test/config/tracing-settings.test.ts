/** When tracing is on, from the config's `tracing` and the standard `OTEL_*` variables. */
import { describe, expect, it } from 'vitest';
import { BootError } from '../../src/config/boot-error.js';
import { checkConfig } from '../../src/config/load.js';
import { validateUserConfig } from '../../src/config/validate.js';
import { tracingSettings } from '../../src/config/tracing-settings.js';

describe('tracing settings', () => {
  it('are off with no config and no OTEL_ variables', () => {
    expect(tracingSettings(undefined, {})).toEqual({ enabled: false, exporter: 'otlp', endpoint: undefined, serviceName: 'svc-token-service' });
  });

  it('turn on with an OTLP endpoint or a named exporter in the environment', () => {
    expect(tracingSettings(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).enabled).toBe(true);
    expect(tracingSettings(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }).enabled).toBe(true);
    expect(tracingSettings(undefined, { OTEL_TRACES_EXPORTER: 'otlp' }).enabled).toBe(true);
    expect(tracingSettings(undefined, { OTEL_TRACES_EXPORTER: 'console' })).toMatchObject({ enabled: true, exporter: 'console' });
  });

  it('stay off with OTEL_TRACES_EXPORTER=none, and OTEL_SDK_DISABLED=true wins over everything', () => {
    expect(tracingSettings(undefined, { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).enabled).toBe(false);
    expect(tracingSettings({ enabled: true }, { OTEL_SDK_DISABLED: 'true' }).enabled).toBe(false);
  });

  it('take the config first: enabled, endpoint and service name', () => {
    expect(tracingSettings({ enabled: true, endpoint: 'http://otel:4318/v1/traces', serviceName: 'auth' }, { OTEL_SERVICE_NAME: 'other' }))
      .toEqual({ enabled: true, exporter: 'otlp', endpoint: 'http://otel:4318/v1/traces', serviceName: 'auth' });
    expect(tracingSettings({ enabled: false }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).enabled).toBe(false);
    expect(tracingSettings(undefined, { OTEL_SERVICE_NAME: 'auth-eu' }).serviceName).toBe('auth-eu');
  });

  it('refuse an exporter the service does not have, naming the variable', () => {
    let err: unknown;
    try {
      tracingSettings(undefined, { OTEL_TRACES_EXPORTER: 'zipkin' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BootError);
    expect((err as BootError).message).toBe('OTEL_TRACES_EXPORTER: unsupported exporter "zipkin" (supported: otlp, console, none)');
  });

  it('config problems name the field', () => {
    expect(validateUserConfig({ tracing: { enabled: 'yes', endpoint: 'collector:4318', colour: 1 } })).toEqual([
      'tracing.colour: unknown field (known: enabled, endpoint, serviceName)',
      'tracing.enabled: expected true or false, got "yes"',
      'tracing.endpoint: expected an http(s) URL, got "collector:4318"',
    ]);
    expect(checkConfig({ tracing: { enabled: false } }, process.cwd()).tracing.enabled).toBe(false);
  });
});
