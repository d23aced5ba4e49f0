/**
 * The admin API's own listener (`admin.port`, `admin.host`, loopback by default): never the
 * public port, so a reverse proxy in front of the service does not reach it, and a firewall rule
 * can keep it to the operators' network. Plain HTTP (on loopback, or behind the operators' own
 * TLS-terminating proxy), or HTTPS asking every caller for a client certificate when `admin.tls`
 * is set (`loadAdminTlsOptions`).
 */
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions as HttpsOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { AdminApi } from './admin-api.js';
import { answerClientError, maxHeaderBytes } from '../http/client-error.js';
import { boundConnections, connectionServerOptions } from '../http/connection-bounds.js';
import type { ResolvedConfig } from '../config/schema.js';

export interface AdminListener {
  readonly url: string;
  readonly server: Server;
}

export function listenAdmin(api: AdminApi, port: number, host: string, connections: ResolvedConfig['connections'], tls?: HttpsOptions): Promise<AdminListener> {
  const options = { maxHeaderSize: maxHeaderBytes, ...connectionServerOptions(connections) };
  const server: Server = tls ? createHttpsServer({ ...options, ...tls }, api.koa.callback()) : createServer(options, api.koa.callback());
  server.on('clientError', answerClientError);
  boundConnections(server, connections);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: bound } = server.address() as AddressInfo;
      const url = `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${bound}`;
      api.listening(url);
      resolve({ server, url });
    });
  });
}
