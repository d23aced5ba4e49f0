import { randomBytes, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignJWT, importPKCS8 } from 'jose';
import { loadConfig } from '../config/load.js';
import { CliError } from './user-facing-error.js';

/** The JWS algorithm for a private key, from its type (also the DPoP proof command's). */
function algorithmOf(pem: string): string {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (curve === 'prime256v1') return 'ES256';
  if (curve === 'secp384r1') return 'ES384';
  if (curve === 'secp521r1') return 'ES512';
  throw new CliError(`unsupported key type ${key.asymmetricKeyType}: use an EC (P-256/384/521), RSA or Ed25519 key.`);
}

export function readPrivateKey(path: string): { pem: string; alg: string } {
  const pem = readFileSync(path, 'utf8');
  try {
    return { pem, alg: algorithmOf(pem) };
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`${path} holds no private key svc can read: expected a PEM private key, as written by svc create-client-key.`);
  }
}

/** RFC 7523bis: the audience is the issuer identifier; unless told, the one of the config in use. */
export async function defaultAudience(configPath: string | undefined): Promise<string> {
  try {
    return (await loadConfig({ path: configPath })).config.issuer;
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new CliError(`cannot take the audience from the config (${why}): pass --aud <issuer> or --config <path>.`);
  }
}

/**
 * `svc client-assertion --client <id> --key <key.pem> [--aud <issuer>]`: prints a fresh
 * private_key_jwt assertion (RFC 7523: iss = sub = client id, aud = the issuer, 60 s, unique
 * jti), for curl and for trying a client out.
 */
export async function clientAssertionCommand(values: {
  client?: string | undefined;
  key?: string | undefined;
  aud?: string | undefined;
  config?: string | undefined;
}): Promise<number> {
  if (!values.client || !values.key) {
    process.stderr.write('svc: client-assertion needs --client <clientId> and --key <private-key.pem>\n');
    return 1;
  }
  const { pem, alg } = readPrivateKey(values.key);
  const audience = values.aud ?? (await defaultAudience(values.config));
  const now = Math.floor(Date.now() / 1000);
  const assertion = await new SignJWT({ jti: randomBytes(16).toString('base64url') })
    .setProtectedHeader({ alg, typ: 'client-authentication+jwt' })
    .setIssuer(values.client)
    .setSubject(values.client)
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(await importPKCS8(pem, alg));
  process.stdout.write(`${assertion}\n`);
  return 0;
}
