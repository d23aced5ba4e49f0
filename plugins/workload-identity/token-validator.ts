/**
 * Validates a `jwt-bearer` client assertion issued by a trusted external issuer against the
 * holder's `FederatedCredential` secrets. Cheap checks run first, so a token of an issuer no one
 * trusts, or for a client with no credential of that issuer, never causes a key fetch; the
 * single-use `jti` is recorded last, so a forged, stale or foreign token cannot burn one.
 */
import {
  isDuplicateKeyError, MalformedJws, parseCompactJws, timeOrderedKey, verifyCompactJws,
  type CompactJws, type JwsAlgorithm, type PluginDependencies, type Secret, type SecretHolder,
  type SecretValidationContext, type SecretValidationResult, type SecretValidator,
} from 'svc/sdk';
import { brokenRule } from './claim-rules.js';
import { FEDERATED_CREDENTIAL, JWT_BEARER } from './constants.js';
import { Credentials, mismatch, parseFederatedCredential, type FederatedCredential } from './federated-credential.js';
import { fetchJson as defaultFetchJson, type FetchJson } from './fetch-json.js';
import { IssuerKeySet } from './issuer-keys.js';
import { keyFitsAlgorithm } from './jwks.js';
import type { TrustedIssuer, WorkloadIdentityOptions } from './options.js';
import { reject, show, TokenRejected } from './rejection.js';
import { checkAudience, checkTimes, checkTyp, readJti } from './token-checks.js';

export type ValidatorDeps = Pick<PluginDependencies<WorkloadIdentityOptions>, 'config' | 'clock' | 'store' | 'options' | 'logger'> & {
  /** Tests may stand in for the network. */
  readonly fetchJson?: FetchJson;
};

const isCompactJws = (value: unknown): value is CompactJws =>
  typeof value === 'object' && value !== null && Buffer.isBuffer((value as CompactJws).signingInput);

function decode(parsed: SecretValidationContext['parsed']): CompactJws {
  if (isCompactJws(parsed.decoded)) return parsed.decoded;
  try {
    return parseCompactJws(parsed.credential);
  } catch (error) {
    if (error instanceof MalformedJws) reject(`malformed token: ${error.message}`);
    throw error;
  }
}

const holderName = (holder: SecretHolder): string => (holder.kind === 'client' ? `client "${holder.client.clientId}"` : `API resource "${holder.apiResource.name}"`);

/** Parses every `FederatedCredential` of the config now: a bad one, or one naming an issuer not trusted, stops start-up naming it. */
function credentialsFromConfig(config: ValidatorDeps['config'], trusted: ReadonlyMap<string, TrustedIssuer>): Credentials {
  const credentials = new Credentials();
  const holders: Array<[string, readonly Secret[]]> = [
    ...config.clients.map((c, i): [string, readonly Secret[]] => [`clients[${i}] ("${c.clientId}").clientSecrets`, c.clientSecrets]),
    ...config.apiResources.map((r, i): [string, readonly Secret[]] => [`apiResources[${i}] ("${r.name}").secrets`, r.secrets]),
  ];
  for (const [path, secrets] of holders) {
    secrets.forEach((secret, i) => {
      if (secret.type !== FEDERATED_CREDENTIAL) return;
      let parsed: FederatedCredential;
      try {
        parsed = parseFederatedCredential(secret.value);
      } catch (error) {
        throw new Error(`plugin workload-identity: ${path}[${i}].value: ${(error as Error).message}`);
      }
      if (!trusted.has(parsed.issuer)) {
        throw new Error(`plugin workload-identity: ${path}[${i}].value: issuer ${JSON.stringify(parsed.issuer)} is not in plugins["workload-identity"].issuers`);
      }
      credentials.remember(secret, parsed);
    });
  }
  return credentials;
}

export function createFederatedValidator(deps: ValidatorDeps): SecretValidator {
  const { clock, store, options, logger } = deps;
  const trusted = new Map(options.issuers.map((issuer) => [issuer.issuer, issuer]));
  const credentials = credentialsFromConfig(deps.config, trusted);
  const settings = {
    clock, logger, fetchJson: deps.fetchJson ?? defaultFetchJson,
    fetchTimeout: options.fetchTimeout, cacheTime: options.cacheTime, minRefreshInterval: options.minRefreshInterval, allowLoopback: options.allowLoopback,
  };
  const keySets = new Map(options.issuers.map((issuer) => [issuer.issuer, new IssuerKeySet(issuer, settings)]));
  const { clockSkew } = options;

  /** The holder's credentials naming `iss`; a credential that does not parse is reported, not used. */
  function credentialsFor(holder: SecretHolder, secrets: readonly Secret[], iss: string): FederatedCredential[] {
    const usable: FederatedCredential[] = [];
    const unusable: string[] = [];
    secrets.forEach((secret, index) => {
      const found = credentials.of(secret);
      if (found instanceof Error) unusable.push(`secret ${secret.description === undefined ? `#${index}` : JSON.stringify(secret.description)}: ${found.message}`);
      else if (found.issuer === iss) usable.push(found);
    });
    if (usable.length === 0) {
      reject(`no FederatedCredential of ${holderName(holder)} names issuer ${show(iss)}${unusable.length === 0 ? '' : `; unusable: ${unusable.join('; ')}`}`);
    }
    return usable;
  }

  async function verify(jws: CompactJws, issuer: TrustedIssuer): Promise<void> {
    const { alg, kid, typ } = jws.header;
    if (!(issuer.algorithms as readonly unknown[]).includes(alg)) reject(`alg ${show(alg)} is not allowed for issuer ${show(issuer.issuer)} (${issuer.algorithms.join(', ')})`);
    if (kid !== undefined && typeof kid !== 'string') reject(`kid is not a string: ${show(kid)}`);
    checkTyp(typ);
    const lookup = await keySets.get(issuer.issuer)!.keysFor(kid);
    if ('problem' in lookup) reject(lookup.problem);
    const fitting = lookup.keys.filter((key) => keyFitsAlgorithm(key, alg as JwsAlgorithm));
    if (fitting.length === 0) reject(`no key of issuer ${show(issuer.issuer)}${kid === undefined ? '' : ` with kid ${show(kid)}`} fits alg ${String(alg)}`);
    if (!fitting.some(({ key }) => verifyCompactJws(jws, alg as JwsAlgorithm, key))) reject('signature does not verify');
  }

  /**
   * RFC 7523 §3 item 7: a token with a `jti` authenticates once, until it expires, on every node
   * (the store is shared). Keyed by issuer and `jti` — not by client: one token, one use.
   */
  async function spend(issuer: TrustedIssuer, jti: string, exp: number, holderId: string): Promise<void> {
    try {
      await store.add({
        key: timeOrderedKey(exp * 1000, `jti:${issuer.issuer}:${jti}`),
        type: 'federated_jti',
        clientId: holderId,
        subjectId: undefined,
        sessionId: undefined,
        createdAt: clock.now(),
        expiresAt: Math.ceil((exp + clockSkew) * 1000),
        consumedAt: undefined,
        data: '{}',
      });
    } catch (error) {
      if (isDuplicateKeyError(error)) reject(`jti ${show(jti)} of issuer ${show(issuer.issuer)} was already used (replay)`);
      throw error;
    }
  }

  async function check({ parsed, secrets, holder }: SecretValidationContext): Promise<void> {
    if (parsed.type !== JWT_BEARER) reject(`parsed secret type ${show(parsed.type)} is not ${JWT_BEARER}`);
    const jws = decode(parsed);
    const claims = jws.claims as Readonly<Record<string, unknown>>;
    const { iss } = claims;
    if (typeof iss !== 'string') reject(`iss ${show(iss)} is missing or not a string`);
    const issuer = trusted.get(iss);
    if (issuer === undefined) reject(`iss ${show(iss)} is not a trusted issuer`);
    const candidates = credentialsFor(holder, secrets, iss);

    await verify(jws, issuer);
    checkAudience(claims, issuer);
    const exp = checkTimes(claims, issuer, clock.now() / 1000, clockSkew);
    if (typeof claims.sub !== 'string' || claims.sub === '') reject(`sub ${show(claims.sub)} is missing or empty`);
    const jti = readJti(claims, issuer);
    const brokenByIssuer = brokenRule(issuer.claims, claims);
    if (brokenByIssuer !== undefined) reject(`issuer rule: ${brokenByIssuer}`);
    const reasons: string[] = [];
    if (!candidates.some((credential) => {
      const why = mismatch(credential, claims);
      if (why !== undefined) reasons.push(why);
      return why === undefined;
    })) {
      reject(`sub ${show(claims.sub)} matches no FederatedCredential of ${holderName(holder)} for this issuer: ${reasons.join('; ')}`);
    }
    if (jti !== undefined && issuer.singleUse) await spend(issuer, jti, exp, holder.kind === 'client' ? holder.client.clientId : holder.apiResource.name);
  }

  return {
    parsedSecretTypes: [JWT_BEARER],
    secretTypes: [FEDERATED_CREDENTIAL],
    async validate(context): Promise<SecretValidationResult> {
      try {
        await check(context);
        return { success: true };
      } catch (error) {
        if (error instanceof TokenRejected) return { success: false, reason: `workload-identity: ${error.message}` };
        throw error;
      }
    },
  };
}
