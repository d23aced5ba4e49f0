/**
 * An https server on loopback for the client ID metadata document tests (issue 36): its own CA
 * (written to a PEM file for `clientIdMetadataDocuments.trustedCertificates`), a certificate for
 * 127.0.0.1 and localhost, and routes the test sets, each a plain handler.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issue, makeCa } from './certificates.js';

export type Route = (req: IncomingMessage, res: ServerResponse) => void;

export interface DocumentServer {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The CA's PEM file. */
  readonly caFile: string;
  /** Requests per path so far. */
  readonly hits: Map<string, number>;
  route(path: string, handler: Route): void;
  /** Serves `body` as JSON at `path`, with extra headers. */
  json(path: string, body: unknown, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const ca = await makeCa('CN=Document Test CA');
  const certificate = await issue(ca, 'CN=localhost', { serverNames: ['127.0.0.1', 'localhost'] });
  const dir = mkdtempSync(join(tmpdir(), 'svc-cimd-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.certificatePem);
  const routes = new Map<string, Route>();
  const hits = new Map<string, number>();
  const server: Server = createServer({ cert: certificate.certificatePem, key: certificate.keyPem }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = routes.get(path);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caFile,
    hits,
    route: (path, handler) => routes.set(path, handler),
    json(path, body, headers = {}) {
      routes.set(path, (_req, res) => res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body)));
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
