/**
 * `svc clients test-auth`: why would this client's authentication fail? The questions behind a
 * decade of "my secret is not accepted": is the client known, enabled, allowed this method, does
 * it hold a secret the method can check, has every such secret expired, is the stored value a
 * hash at all (not the secret itself, not hex)? It reads only what is stored; no secret is sent
 * anywhere or asked for.
 */
import type { Client } from '../config/schema.js';
import type { PluginRegistry } from '../plugin-host/plugin-registry.js';

export interface AuthDiagnosis {
  /** True when some method would authenticate the client given the right credential. */
  readonly ok: boolean;
  readonly findings: readonly string[];
}

/** What a shared-secret validator accepts: base64 of a SHA-256 (32 bytes) or SHA-512 (64 bytes) digest. */
function isStoredHash(value: string): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  const bytes = Buffer.from(value, 'base64').length;
  return bytes === 32 || bytes === 64;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function diagnoseClientAuth(
  id: string,
  found: { client: Client; source: string; disabled: boolean } | undefined,
  registry: Pick<PluginRegistry, 'secretParsers' | 'secretValidators'>,
  options: { method?: string | undefined; now: number },
): AuthDiagnosis {
  if (!found) return { ok: false, findings: [`unknown client: neither the config file nor the database defines "${id}"`] };
  const { client, source, disabled } = found;
  const findings = [`client "${id}" comes from the ${source}`];
  if (disabled) return { ok: false, findings: [...findings, 'disabled: every authentication is refused (svc clients enable to allow it again)'] };
  if (!client.requireClientSecret) {
    findings.push('public client: authenticates with client_id alone (method none)');
    if (options.method === undefined || options.method === 'none') return { ok: true, findings };
  }
  const parsers = new Map(registry.secretParsers.map((p) => [p.authenticationMethod, p]));
  const methods = options.method !== undefined ? [options.method] : (client.tokenEndpointAuthMethods ?? [...parsers.keys()].sort()).filter((m) => m !== 'none');
  let ok = false;
  for (const method of methods) {
    const pinned = client.tokenEndpointAuthMethods;
    if (pinned !== undefined && !pinned.includes(method)) {
      findings.push(`${method}: not allowed, the client's tokenEndpointAuthMethods are ${pinned.join(', ')}`);
      continue;
    }
    const parser = parsers.get(method);
    if (!parser) {
      findings.push(`${method}: no loaded plugin provides this method (known: ${[...parsers.keys()].join(', ') || 'none'})`);
      continue;
    }
    const parsed = parser.parsedSecretType;
    const types = [...new Set(registry.secretValidators.filter((v) => parsed === undefined || v.parsedSecretTypes.includes(parsed)).flatMap((v) => v.secretTypes))];
    const own = client.clientSecrets.filter((s) => types.includes(s.type));
    if (own.length === 0) {
      findings.push(`${method}: the client has no secret of a kind this method checks (needs ${types.join(' or ') || 'a validator plugin'})`);
      continue;
    }
    const live = own.filter((s) => s.expiresAt === undefined || s.expiresAt > options.now);
    if (live.length === 0) {
      findings.push(`${method}: every secret of that kind has expired (the last at ${iso(Math.max(...own.map((s) => s.expiresAt!)))}); add one with svc clients secret add`);
      continue;
    }
    const unusable = live.filter((s) => s.type === 'SharedSecret' && !isStoredHash(s.value));
    for (const s of unusable) {
      findings.push(
        `${method}: secret ${s.description === undefined ? `#${client.clientSecrets.indexOf(s) + 1}` : `"${s.description}"`} is not a 32- or 64-byte base64 hash ` +
          '(the secret itself, or hex? store the output of svc hash-secret)',
      );
    }
    const usable = live.length - unusable.length;
    if (usable === 0) continue;
    const soonest = live.filter((s) => s.expiresAt !== undefined).map((s) => s.expiresAt!);
    findings.push(`${method}: ok, ${usable} usable secret${usable === 1 ? '' : 's'}${soonest.length > 0 && soonest.length === live.length ? `, the last expiring ${iso(Math.max(...soonest))}` : ''}`);
    ok = true;
  }
  return { ok, findings };
}
