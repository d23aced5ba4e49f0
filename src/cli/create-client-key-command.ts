import { existsSync, writeFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { createClientKey, type ClientKeyAlgorithm } from './create-client-key.js';

const algorithms: readonly ClientKeyAlgorithm[] = ['ES256', 'RS256', 'PS256', 'EdDSA'];

/** Beside the key: `billing.pem` → `billing.crt`, `billing.key` → `billing.crt`. */
export function certificatePathFor(keyPath: string): string {
  const ext = extname(keyPath);
  return `${ext === '' ? keyPath : keyPath.slice(0, -ext.length)}.crt`;
}

/**
 * `svc create-client-key --client <id> --out <key.pem>`: writes the private key where the user
 * says (mode 0600), its self-signed certificate beside it (or where `--cert` says; for
 * `svc clients secret add --certificate` and for mutual TLS), and prints the secret definition
 * to paste into the client's `clientSecrets`.
 */
export async function createClientKeyCommand(values: {
  client?: string | undefined; out?: string | undefined; cert?: string | undefined; alg?: string | undefined; days?: string | undefined;
}): Promise<number> {
  if (!values.client || !values.out) {
    process.stderr.write('svc: create-client-key needs --client <clientId> and --out <private-key.pem>\n');
    return 1;
  }
  const alg = (values.alg ?? 'ES256') as ClientKeyAlgorithm;
  if (!algorithms.includes(alg)) {
    process.stderr.write(`svc: --alg must be one of ${algorithms.join(', ')}\n`);
    return 1;
  }
  const days = values.days === undefined ? 365 : Number(values.days);
  if (!Number.isInteger(days) || days < 1) {
    process.stderr.write('svc: --days must be a whole number of days\n');
    return 1;
  }
  const key = await createClientKey({ clientId: values.client, alg, days });
  const out = resolve(values.out);
  const certOut = resolve(values.cert ?? certificatePathFor(values.out));
  if (certOut === out) {
    process.stderr.write('svc: --cert must name another file than --out\n');
    return 1;
  }
  // When either file exists, neither is written (the key's is named first).
  for (const [path, what] of [[out, 'a key'], [certOut, 'a certificate']] as const) {
    if (existsSync(path)) {
      process.stderr.write(`svc: cannot write ${path}: the file exists (not overwriting ${what})\n`);
      return 1;
    }
  }
  if (!write(out, key.privateKeyPem, 0o600, 'a key') || !write(certOut, key.certificatePem, 0o644, 'a certificate')) return 1;
  process.stdout.write(
    `private key written to ${out} (keep it with the client; the service never needs it)\n` +
      `certificate written to ${certOut} (public; \`svc clients secret add ${values.client} --certificate ${certOut}\` stores it for a client in the database)\n\n` +
      `add to clients[].clientSecrets of "${values.client}":\n${JSON.stringify(key.secret, null, 2)}\n`,
  );
  return 0;
}

function write(path: string, content: string, mode: number, what: string): boolean {
  try {
    writeFileSync(path, content, { mode, flag: 'wx' });
    return true;
  } catch (err) {
    process.stderr.write(`svc: cannot write ${path}: ${(err as NodeJS.ErrnoException).code === 'EEXIST' ? `the file exists (not overwriting ${what})` : (err as Error).message}\n`);
    return false;
  }
}
