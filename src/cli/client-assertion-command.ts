import { randomBytes, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignJWT, importPKCS8 } from 'jose';

/** The JWS algorithm for a private key, from its type. */
function algorithmOf(pem: string): string {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (curve === 'prime256v1') return 'ES256';
  if (curve === 'secp384r1') return 'ES384';
  if (curve === 'secp521r1') return 'ES512';
  throw new Error(`unsupported key type ${key.asymmetricKeyType}`);
}

/**
 * `svc client-assertion --client <id> --key <key.pem> [--aud <issuer>]`: prints a fresh
 * private_key_jwt assertion (RFC 7523: iss = sub = client id, aud = the issuer, 60 s, unique
 * jti), for curl and for trying a client out.
 */
export async function clientAssertionCommand(values: { client?: string | undefined; key?: string | undefined; aud?: string | undefined }): Promise<number> {
  if (!values.client || !values.key) {
    process.stderr.write('svc: client-assertion needs --client <clientId> and --key <private-key.pem>\n');
    return 1;
  }
  const pem = readFileSync(values.key, 'utf8');
  const alg = algorithmOf(pem);
  const now = Math.floor(Date.now() / 1000);
  const assertion = await new SignJWT({ jti: randomBytes(16).toString('base64url') })
    .setProtectedHeader({ alg, typ: 'client-authentication+jwt' })
    .setIssuer(values.client)
    .setSubject(values.client)
    .setAudience(values.aud ?? 'http://localhost:5000')
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(await importPKCS8(pem, alg));
  process.stdout.write(`${assertion}\n`);
  return 0;
}
