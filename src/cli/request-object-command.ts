/**
 * `svc request-object --client <id> --key <key.pem> [--aud <issuer>] name=value...`: prints a
 * signed request object (RFC 9101 §4) carrying the given authorization request parameters, for
 * curl and for trying a client out: typed `oauth-authz-req+jwt`, `iss` and `client_id` the
 * client, `aud` the issuer, five minutes from `nbf`, a unique `jti`.
 */
import { randomBytes } from 'node:crypto';
import { SignJWT, importPKCS8 } from 'jose';
import { defaultAudience, readPrivateKey } from './client-assertion-command.js';
import { CliError } from './user-facing-error.js';

/** What the request object carries besides the parameters: they are the JWT's own. */
const reserved = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti', 'client_id', 'request', 'request_uri']);

export function parametersOf(positionals: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const item of positionals) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new CliError(`expected name=value, got "${item}" (e.g. response_type=code)`);
    const name = item.slice(0, eq);
    if (reserved.has(name)) throw new CliError(`${name} is set by svc request-object itself; leave it out`);
    if (name in params) throw new CliError(`${name} is given twice`);
    params[name] = item.slice(eq + 1);
  }
  return params;
}

export async function requestObjectCommand(values: {
  client?: string | undefined;
  key?: string | undefined;
  aud?: string | undefined;
  config?: string | undefined;
}, positionals: readonly string[]): Promise<number> {
  if (!values.client || !values.key) {
    process.stderr.write('svc: request-object needs --client <clientId> and --key <private-key.pem>\n');
    return 1;
  }
  const params = parametersOf(positionals);
  const { pem, alg } = readPrivateKey(values.key);
  const audience = values.aud ?? (await defaultAudience(values.config));
  const now = Math.floor(Date.now() / 1000);
  const requestObject = await new SignJWT({ ...params, client_id: values.client, jti: randomBytes(16).toString('base64url') })
    .setProtectedHeader({ alg, typ: 'oauth-authz-req+jwt' })
    .setIssuer(values.client)
    .setAudience(audience)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + 300)
    .sign(await importPKCS8(pem, alg));
  process.stdout.write(`${requestObject}\n`);
  return 0;
}
