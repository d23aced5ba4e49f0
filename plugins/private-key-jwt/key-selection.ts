/**
 * Which of a holder's keys may have signed a JWS (its `kid`, the key's fit to `alg`, a
 * certificate's dates), and whether one of them did: shared by client assertions and by the
 * request objects the host asks this plugin to verify (`request-object-verifier.ts`).
 */
import type { JWTPayload } from 'jose';
import { verifyCompactJws, type CompactJws } from 'svc/sdk';
import { describeKey, keyFitsAlgorithm, type SupportedAlgorithm } from './algorithms.js';
import type { CandidateKey } from './client-keys.js';
import { reject, show } from './rejection.js';

/** `kid` narrows the keys when present; then the key type must fit `alg`; then certificates must be in date. */
export function selectKeys(all: readonly CandidateKey[], unusable: readonly string[], header: { readonly alg: SupportedAlgorithm; readonly kid: string | undefined }, nowMs: number): CandidateKey[] {
  const problems = unusable.length === 0 ? '' : `; unusable: ${unusable.join('; ')}`;
  if (all.length === 0) reject(`the client has no usable X509CertificateBase64 or JsonWebKey secret${problems}`);
  const { alg, kid } = header;
  const selected = kid === undefined ? all : all.filter(({ key }) => key.kids.has(kid));
  if (selected.length === 0) reject(`no key of the client has kid ${show(kid)}${problems}`);
  const fitting = selected.filter(({ key }) => keyFitsAlgorithm(key, alg));
  if (fitting.length === 0) {
    const which = kid === undefined ? 'no key of the client' : `no key with kid ${show(kid)}`;
    reject(`${which} fits alg ${alg} (keys: ${selected.map(({ key }) => describeKey(key)).join(', ')})`);
  }
  const inDate = fitting.filter(({ key }) => (key.notBefore ?? -Infinity) <= nowMs && nowMs <= (key.notAfter ?? Infinity));
  if (inDate.length === 0) {
    const why = fitting.map(({ key, label }) =>
      nowMs < (key.notBefore ?? 0)
        ? `certificate of ${label} is not valid before ${new Date(key.notBefore ?? 0).toISOString()}`
        : `certificate of ${label} expired at ${new Date(key.notAfter ?? 0).toISOString()}`,
    );
    reject(why.join('; '));
  }
  return inDate;
}

/** Tries each candidate under the header's alg, the only one checked against the key; the first that verifies wins. */
export function verifiedClaims(jws: CompactJws, alg: SupportedAlgorithm, candidates: readonly CandidateKey[]): JWTPayload {
  if (!candidates.some(({ key }) => verifyCompactJws(jws, alg, key.key))) {
    reject(`signature does not verify with ${candidates.length === 1 ? 'the' : `any of ${candidates.length}`} candidate key${candidates.length === 1 ? '' : 's'}`);
  }
  return jws.claims as JWTPayload;
}
