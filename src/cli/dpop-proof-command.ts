import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import { accessTokenHash } from '../sdk/dpop.js';
import { signCompactJws } from '../sdk/jws.js';
import { readPrivateKey } from './client-assertion-command.js';
import { CliError } from './user-facing-error.js';

/**
 * `svc dpop-proof --key <key.pem> --htu <url> [--htm POST] [--token <access token>] [--nonce <n>]`:
 * prints a fresh DPoP proof (RFC 9449 §4.2) for one request, for curl: the public key in the
 * header, a new `jti`, `iat` now, and `ath` when the proof accompanies an access token.
 */
export function dpopProofCommand(values: {
  key?: string | undefined;
  htu?: string | undefined;
  htm?: string | undefined;
  token?: string | undefined;
  nonce?: string | undefined;
}): number {
  if (!values.key || !values.htu) {
    process.stderr.write('svc: dpop-proof needs --key <private-key.pem> and --htu <endpoint URL>\n');
    return 1;
  }
  try {
    new URL(values.htu);
  } catch {
    throw new CliError(`--htu must be an absolute URL such as http://localhost:5000/connect/token, got "${values.htu}".`);
  }
  const { pem, alg } = readPrivateKey(values.key);
  const privateKey = createPrivateKey(pem);
  // The public members only (RFC 9449 §4.3 check 7): export from the public half.
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  const claims: Record<string, unknown> = {
    jti: randomUUID(),
    htm: (values.htm ?? 'POST').toUpperCase(),
    htu: values.htu,
    iat: Math.floor(Date.now() / 1000),
  };
  if (values.token !== undefined) claims.ath = accessTokenHash(values.token);
  if (values.nonce !== undefined) claims.nonce = values.nonce;
  process.stdout.write(`${signCompactJws(privateKey, alg)({ typ: 'dpop+jwt', alg, jwk }, claims)}\n`);
  return 0;
}
