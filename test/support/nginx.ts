/**
 * A real nginx in front of the service, started by the test as a child process (no daemon, no
 * master process) from a generated config on a free port. Without nginx on the machine the
 * proxy tests are skipped with a visible message, except under CI (`CI=true`, where `.ci/run`
 * installs Debian's nginx), where they run and fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

const candidates = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx'];
export const nginxBinary = candidates.find((p) => existsSync(p));

/** Why the nginx tests cannot run here, or `undefined` when they can (or must, under CI). */
export function nginxSkipReason(): string | undefined {
  if (nginxBinary || process.env.CI === 'true') return undefined;
  const reason = 'nginx is not installed (apt-get install nginx)';
  console.warn(`Skipping the reverse-proxy tests: ${reason}.`);
  return reason;
}

export interface Nginx {
  /** `http://127.0.0.1:<port>` (`https://` with `tls`): nginx's own address. */
  readonly url: string;
  close(): Promise<void>;
}

/** nginx terminating TLS: its certificate and key files, and whether it asks clients for certificates. */
export interface NginxTls {
  readonly certificate: string;
  readonly key: string;
  /**
   * Ask for a client certificate and take any (`ssl_verify_client optional_no_ca`): the service
   * behind judges it from `$ssl_client_escaped_cert`, as with its own handshake.
   */
  readonly requestClientCertificate?: boolean;
}

/**
 * Starts nginx on 127.0.0.1 proxying everything to `upstream` with the given
 * `proxy_set_header` lines, e.g. `{ 'X-Forwarded-For': '$proxy_add_x_forwarded_for' }`.
 */
export async function startNginx(upstream: string, setHeaders: Record<string, string>, tls?: NginxTls): Promise<Nginx> {
  if (!nginxBinary) throw new Error('nginx is not installed: apt-get install nginx');
  const dir = mkdtempSync(join(tmpdir(), 'svc-nginx-'));
  const port = await freePort();
  const tlsLines = tls === undefined ? '' : [
    `    ssl_certificate ${tls.certificate};`,
    `    ssl_certificate_key ${tls.key};`,
    ...(tls.requestClientCertificate ? ['    ssl_verify_client optional_no_ca;'] : []),
  ].map((line) => `${line}\n`).join('');
  const headerLines = Object.entries(setHeaders).map(([name, value]) => `      proxy_set_header ${name} ${value};`).join('\n');
  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port}${tls ? ' ssl' : ''};
${tlsLines}    location / {
      proxy_pass ${upstream};
${headerLines}
    }
  }
}
`,
  );
  const child = spawn(nginxBinary, ['-e', 'stderr', '-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  await waitForPort(port, child, () => stderr);
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: async () => {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${stderr()}`);
    const open = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nginx did not listen on ${port}: ${stderr()}`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
