/**
 * The config checks that need the loaded plugins: every grant type a client allows and every
 * secret type must be provided by something registered; every authentication method a client
 * pins must exist, and the client must hold a secret it can check; each grant a client allows
 * judges the client (`checkClient`); the fields plugins declare are checked by them and any
 * other field is refused as unknown (`check-client-fields.ts`). The entry checker (`src/clients/check-entry.ts`) runs the
 * same on every client from the database or a client-store plugin.
 */
import { BootError } from '../config/boot-error.js';
import { didYouMean } from '../config/closest-name.js';
import type { Client, ResolvedConfig, Secret } from '../config/schema.js';
import { checkPluginClientFields } from './check-client-fields.js';
import type { PluginRegistry } from './plugin-registry.js';
import { receivesClientCertificates } from '../config/tls-material.js';

function checkAuthMethods(path: string, client: Client, registry: PluginRegistry, problems: string[], certificates: boolean): void {
  const parsers = new Map(registry.secretParsers.map((p) => [p.authenticationMethod, p]));
  const known = ['none', ...[...parsers.keys()].sort()];
  client.tokenEndpointAuthMethods?.forEach((method, j) => {
    const at = `${path}[${j}]`;
    if (method === 'none') return; // validate.ts allows it only for public clients
    const parser = parsers.get(method);
    if (!parser) {
      problems.push(`${at}: unknown authentication method "${method}" (known: ${known.join(', ')})`);
      return;
    }
    if (parser.fromConnection === true && !certificates) {
      problems.push(`${at}: ${method} reads the TLS client certificate, and none can reach the service: set tls.requestClientCertificate, or mtls.certificateHeader with trustedProxies`);
      return;
    }
    const parsedType = parser.parsedSecretType;
    if (parsedType === undefined) return; // the parser does not say what it finds: nothing to check against
    const fitting = [...new Set(registry.secretValidators.filter((v) => v.parsedSecretTypes.includes(parsedType)).flatMap((v) => v.secretTypes))];
    if (!client.clientSecrets.some((s) => fitting.includes(s.type))) {
      const needs = fitting.length > 0 ? `needs a secret of type ${fitting.join(' or ')}` : `no loaded secret validator checks ${method} credentials`;
      problems.push(`${at}: the client has no secret ${method} can check (${needs})`);
    }
  });
}

export function checkConfigAgainstPlugins(config: Pick<ResolvedConfig, 'apiResources' | 'clients' | 'tls' | 'mtls' | 'trustedProxies'>, registry: PluginRegistry): void {
  const problems: string[] = [];
  const grantTypes = [...registry.grants.keys()];
  const secretTypes = [...new Set(registry.secretValidators.flatMap((v) => v.secretTypes))];
  const checkSecrets = (path: string, secrets: readonly Secret[]): void =>
    secrets.forEach((s, i) => {
      if (!secretTypes.includes(s.type)) {
        problems.push(`${path}[${i}].type: unknown secret type "${s.type}"${didYouMean(s.type, secretTypes)} (known: ${secretTypes.join(', ') || 'none: no secret validator plugin is loaded'})`);
      }
    });
  config.clients.forEach((client, i) => {
    // Unknown fields first, as the config's own checks list them; a grant judges only a client whose plugin fields passed.
    const fieldProblems = checkPluginClientFields(`clients[${i}]`, client, config.apiResources, registry);
    problems.push(...fieldProblems);
    client.allowedGrantTypes.forEach((g, j) => {
      const grant = registry.grants.get(g);
      if (!grant) {
        problems.push(`clients[${i}].allowedGrantTypes[${j}]: unknown grant type "${g}"${didYouMean(g, grantTypes)} (known: ${grantTypes.join(', ')})`);
        return;
      }
      const problem = fieldProblems.length > 0 ? undefined : grant.checkClient?.(client);
      if (problem) problems.push(`clients[${i}].${problem.field}: ${problem.message}`);
    });
    checkSecrets(`clients[${i}].clientSecrets`, client.clientSecrets);
    checkAuthMethods(`clients[${i}].tokenEndpointAuthMethods`, client, registry, problems, receivesClientCertificates(config));
  });
  config.apiResources.forEach((r, i) => checkSecrets(`apiResources[${i}].secrets`, r.secrets));
  if (problems.length > 0) throw new BootError('CONFIG_INVALID', problems);
}
