import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createClientKey, type ClientKeyAlgorithm } from './create-client-key.js';

const algorithms: readonly ClientKeyAlgorithm[] = ['ES256', 'RS256', 'PS256', 'EdDSA'];

/**
 * `svc create-client-key --client <id> --out <key.pem>`: writes the private key where the user
 * says (mode 0600) and prints the secret definition to paste into the client's `clientSecrets`.
 */
export async function createClientKeyCommand(values: { client?: string | undefined; out?: string | undefined; alg?: string | undefined; days?: string | undefined }): Promise<number> {
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
  try {
    writeFileSync(out, key.privateKeyPem, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    process.stderr.write(`svc: cannot write ${out}: ${(err as NodeJS.ErrnoException).code === 'EEXIST' ? 'the file exists (not overwriting a key)' : (err as Error).message}\n`);
    return 1;
  }
  process.stdout.write(
    `private key written to ${out} (keep it with the client; the service never needs it)\n\n` +
      `add to clients[].clientSecrets of "${values.client}":\n${JSON.stringify(key.secret, null, 2)}\n`,
  );
  return 0;
}
