/**
 * One view of the metrics with several workers: whichever worker a scrape reaches asks the
 * primary, which collects every worker's registry through prom-client's AggregatorRegistry
 * (counters and histograms summed, per-process gauges as prom-client's default metrics declare)
 * and answers with the whole instance. Without cluster mode a scrape reads the local registry.
 */
import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry, type Registry } from 'prom-client';

const request = 'svc:metrics-request';
const response = 'svc:metrics-response';
/** A worker that does not answer the primary in time leaves the scrape failing, not hanging. */
const scrapeTimeoutMs = 5000;

interface MetricsRequest { type: typeof request; id: string }
interface MetricsResponse { type: typeof response; id: string; text?: string; error?: string }

const isRequest = (m: unknown): m is MetricsRequest => (m as MetricsRequest | null)?.type === request;
const isResponse = (m: unknown): m is MetricsResponse => (m as MetricsResponse | null)?.type === response;

/** In a worker: answer the primary's collection with this registry (not prom-client's global one). */
export function shareWithPrimary(registry: Registry): void {
  if (!cluster.isWorker) return;
  // prom-client installs the worker's answering listener only when an AggregatorRegistry is built.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

/** In the primary: serve workers' requests for the aggregated metrics. */
export function aggregateForWorkers(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isRequest(message)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: response, id: message.id, text } satisfies MetricsResponse),
      (err: unknown) => worker.isConnected() && worker.send({ type: response, id: message.id, error: (err as Error).message } satisfies MetricsResponse),
    );
  });
}

/** The metrics text a scrape of this process answers: the whole instance in cluster mode. */
export function metricsText(registry: Registry): Promise<string> {
  if (!cluster.isWorker || !process.send) return registry.metrics();
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    const onMessage = (message: unknown): void => {
      if (!isResponse(message) || message.id !== id) return;
      done();
      if (message.text !== undefined) resolve(message.text);
      else reject(new Error(`the primary could not collect the workers' metrics: ${message.error ?? 'no answer'}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error('the primary did not answer with the aggregated metrics in time'));
    }, scrapeTimeoutMs);
    process.on('message', onMessage);
    process.send!({ type: request, id } satisfies MetricsRequest);
  });
}
