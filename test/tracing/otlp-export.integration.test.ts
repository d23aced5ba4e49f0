/**
 * `svc start` as a user runs it, tracing turned on by the standard variables alone
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`), sends its spans over OTLP/HTTP to a
 * receiver this test runs: the request's server span and its children arrive under the service's
 * name, with the request id and the caller's trace, and none of them holds the client's secret or the token.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/sdk/hash.js';
import { basic, freePort, postForm } from '../support/server.js';
import { runSvc, until, type SvcProcess } from '../support/svc-process.js';

interface OtlpAttribute { key: string; value: { stringValue?: string; intValue?: number | string } }
interface OtlpSpan { name: string; traceId: string; spanId: string; parentSpanId?: string; attributes: OtlpAttribute[]; links?: Array<{ traceId: string; spanId: string }> }
interface OtlpExport {
  resourceSpans: Array<{ resource: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }> }>;
}

const secret = 'otlp-client-secret-5c1d';
const exports: Array<{ path: string; contentType: string | undefined; body: OtlpExport }> = [];
let receiver: Server;
let receiverUrl: string;
let dir: string;
let svc: SvcProcess | undefined;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      exports.push({ path: req.url ?? '', contentType: req.headers['content-type'], body: JSON.parse(text) as OtlpExport });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address() as { port: number };
  receiverUrl = `http://127.0.0.1:${address.port}`;
  dir = mkdtempSync(join(tmpdir(), 'svc-otlp-'));
});

afterAll(async () => {
  if (svc && svc.proc.exitCode === null) svc.proc.kill('SIGKILL');
  await new Promise((resolve) => receiver.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const text = (attributes: OtlpAttribute[], key: string): string | number | undefined => {
  const value = attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};

describe('tracing exported over OTLP/HTTP', () => {
  it('sends the spans of a token request to the endpoint OTEL_EXPORTER_OTLP_ENDPOINT names', async () => {
    const port = await freePort();
    const configFile = join(dir, 'svc.config.json');
    writeFileSync(configFile, JSON.stringify({
      port, issuer: `http://127.0.0.1:${port}`, store: 'memory',
      apiScopes: [{ name: 'api1.read' }],
      apiResources: [{ name: 'api1', scopes: ['api1.read'] }],
      clients: [{ clientId: 'm2m', clientSecrets: [{ value: hashSecret(secret) }], allowedGrantTypes: ['client_credentials'], allowedScopes: ['api1.read'] }],
    }));
    svc = runSvc(configFile, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl, OTEL_SERVICE_NAME: 'svc-under-test', OTEL_BSP_SCHEDULE_DELAY: '50' },
    });
    await until('svc listening', svc, () => svc!.output().includes('"svc listening"'));

    const res = await postForm(`http://127.0.0.1:${port}/connect/token`, { grant_type: 'client_credentials' }, {
      authorization: basic('m2m', secret), 'x-request-id': 'otlp-1', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(res.status).toBe(200);
    const token = String(res.body.access_token);

    const spans = (): OtlpSpan[] => exports.flatMap((e) => e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    const deadline = Date.now() + 15_000;
    while (!spans().some((s) => s.name === 'POST /connect/token') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    expect(exports[0]!.path).toBe('/v1/traces');
    expect(exports[0]!.contentType).toBe('application/json');
    const [resource] = exports[0]!.body.resourceSpans;
    expect(text(resource!.resource.attributes, 'service.name')).toBe('svc-under-test');
    expect(resource!.scopeSpans[0]!.scope.name).toBe('svc-token-service');

    const request = spans().find((s) => s.name === 'POST /connect/token')!;
    expect(request).toBeDefined();
    expect(text(request.attributes, 'svc.request_id')).toBe('otlp-1');
    // The service's own trace, the caller's span (W3C Trace Context) linked for correlation.
    expect(request.traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    expect(request.parentSpanId ?? '').toBe('');
    expect(request.links?.map((l) => [l.traceId, l.spanId])).toEqual([['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331']]);
    expect(text(request.attributes, 'oauth.client_id')).toBe('m2m');
    expect(text(request.attributes, 'http.response.status_code')).toBe(200);
    const children = spans().filter((s) => s.parentSpanId === request.spanId).map((s) => s.name);
    expect(children).toEqual(expect.arrayContaining(['client_authentication', 'grant client_credentials', 'token_issuance']));

    const all = JSON.stringify(exports);
    expect(all).not.toContain(secret);
    expect(all).not.toContain(token);
    svc.proc.kill('SIGTERM');
    expect((await svc.exited).code).toBe(0);
  });
});
