/**
 * Passkeys (WebAuthn Level 3, issue 35) through `@simplewebauthn/server`: the ceremonies'
 * options and the checks of what the browser answers (origin, RP id, challenge, signature,
 * counter), for the users the service keeps.
 *
 * - The relying party is the issuer: its host is the RP id, its origin the only origin accepted.
 * - Attestation `none`: the service trusts the key, not a vendor's statement about it.
 * - Challenges are single use and short-lived (five minutes), kept in the store so any node can
 *   finish a ceremony another began; the one check that consumes one wins (`Store.consume`).
 * - A counter that does not grow (for an authenticator that keeps one) refuses the assertion
 *   (WebAuthn §6.1.1: a cloned authenticator), and the new counter is written only over the old.
 * - RFC 8176 `amr`: `hwk` for a key bound to one device, `swk` for a synced passkey, `user` when
 *   the authenticator verified the person (PIN or biometrics).
 */
import { randomBytes } from 'node:crypto';
import type {
  AuthenticationResponseJSON, AuthenticatorTransport, PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Clock } from '../sdk/contracts.js';
import type { EventService } from '../events/event-service.js';
import type { Store } from '../store/store.js';
import { isDuplicateKeyError } from '../store/store.js';
import type { PasskeyRecord, SecondFactorStore } from '../store/second-factor-records.js';

const challengeType = 'webauthn_challenge';
const challengeLifetimeMs = 5 * 60_000;

/**
 * The library, loaded at the first ceremony: it is the heaviest module of the service to load
 * (about a fifth of a process's start-up), and most services, and every `svc` command, never
 * run one.
 */
const webauthn = () => import('@simplewebauthn/server');

type Purpose = 'register' | 'second-factor' | 'passwordless';


/**
 * EdDSA, ES256 and RS256 (COSE -8, -7, -257), on every Node: SimpleWebAuthn's default adds
 * ML-DSA-44 first where the runtime's Web Crypto has it (Node 24), which the same passkeys then
 * would not be registered with on Node 20, and which Chromium's authenticators do not offer.
 */
const supportedAlgorithmIDs = [-8, -7, -257];

export interface PasskeyUse {
  readonly subject: string;
  /** RFC 8176 methods this use shows. */
  readonly amr: readonly string[];
}

export interface PasskeyService {
  readonly rpId: string;
  registrationOptions(subjectId: string, username: string): Promise<PublicKeyCredentialCreationOptionsJSON>;
  /** Verifies a registration and keeps the passkey; false when it does not verify (or the challenge is gone). */
  register(subjectId: string, responseJson: string, name: string): Promise<boolean>;
  /** For a known user (after the password: their passkeys), or for anyone (passwordless: discoverable credentials). */
  authenticationOptions(subjectId: string | undefined): Promise<PublicKeyCredentialRequestOptionsJSON>;
  /** Verifies an assertion: of `subjectId`'s passkey, or (without) of whoever's passkey it is, which must have verified the person. */
  authenticate(responseJson: string, subjectId: string | undefined, via: string): Promise<PasskeyUse | undefined>;
  list(subjectId: string): Promise<readonly PasskeyRecord[]>;
  remove(subjectId: string, credentialId: string): Promise<boolean>;
  /** A new name for one of the person's passkeys (trimmed, at most 64 characters; empty keeps the old one). */
  rename(subjectId: string, credentialId: string, name: string): Promise<boolean>;
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const unb64 = (text: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(text, 'base64url'));

function parse<T>(json: string): T | undefined {
  try {
    const value = JSON.parse(json) as unknown;
    return typeof value === 'object' && value !== null ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

export function createPasskeyService(deps: {
  issuer: string;
  store: () => Pick<Store, 'add' | 'consume'>;
  factors: () => SecondFactorStore;
  clock: Clock;
  events?: EventService | undefined;
}): PasskeyService {
  const { clock, events } = deps;
  const issuerUrl = new URL(deps.issuer);
  const rpId = issuerUrl.hostname;
  const origin = issuerUrl.origin;

  async function remember(challenge: string, purpose: Purpose, subjectId: string | undefined): Promise<void> {
    const now = clock.now();
    await deps.store().add({
      key: `webauthn:${challenge}`, type: challengeType, clientId: '', subjectId, sessionId: undefined,
      createdAt: now, expiresAt: now + challengeLifetimeMs, consumedAt: undefined, data: JSON.stringify({ purpose, subjectId: subjectId ?? null }),
    });
  }

  /** The ceremony's check of its challenge: ours, for this purpose and user, unused until now. */
  const challengeFor = (purpose: Purpose, subjectId: string | undefined) => async (challenge: string): Promise<boolean> => {
    const record = await deps.store().consume(`webauthn:${challenge}`, clock.now());
    if (!record || record.type !== challengeType) return false;
    const data = JSON.parse(record.data) as { purpose: Purpose; subjectId: string | null };
    return data.purpose === purpose && (subjectId === undefined || data.subjectId === subjectId);
  };

  const amrOf = (backedUp: boolean, userVerified: boolean): string[] => [backedUp ? 'swk' : 'hwk', ...(userVerified ? ['user'] : [])];

  return {
    rpId,
    async registrationOptions(subjectId, username) {
      const existing = (await deps.factors().get(subjectId)).passkeys;
      const options = await (await webauthn()).generateRegistrationOptions({
        rpName: rpId, rpID: rpId, userName: username, userID: new TextEncoder().encode(subjectId), attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransport[] })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
        supportedAlgorithmIDs,
      });
      await remember(options.challenge, 'register', subjectId);
      return options;
    },
    async register(subjectId, responseJson, name) {
      const response = parse<RegistrationResponseJSON>(responseJson);
      if (!response) return false;
      let verified;
      try {
        verified = await (await webauthn()).verifyRegistrationResponse({
          response, expectedChallenge: challengeFor('register', subjectId), expectedOrigin: origin, expectedRPID: rpId, requireUserVerification: false,
          supportedAlgorithmIDs,
        });
      } catch {
        return false;
      }
      if (!verified.verified) return false;
      const { credential, credentialBackedUp } = verified.registrationInfo;
      try {
        await deps.factors().addPasskey(subjectId, {
          credentialId: credential.id, publicKey: b64(credential.publicKey), transports: credential.transports ?? [], name: passkeyName(name) ?? 'Passkey',
          backedUp: credentialBackedUp, counter: credential.counter, createdAt: clock.now(),
        });
      } catch (error) {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      }
      events?.raise({ type: 'second_factor.enrolled', subject: subjectId, factor: 'passkey' });
      return true;
    },
    async authenticationOptions(subjectId) {
      const passkeys = subjectId === undefined ? [] : (await deps.factors().get(subjectId)).passkeys;
      const options = await (await webauthn()).generateAuthenticationOptions({
        rpID: rpId, userVerification: subjectId === undefined ? 'required' : 'preferred',
        allowCredentials: passkeys.map((p) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransport[] })),
      });
      await remember(options.challenge, subjectId === undefined ? 'passwordless' : 'second-factor', subjectId);
      return options;
    },
    async authenticate(responseJson, subjectId, via) {
      const response = parse<AuthenticationResponseJSON>(responseJson);
      if (!response || typeof response.id !== 'string') return undefined;
      // Passwordless: the credential names its user (the user handle we gave it at registration).
      const owner = subjectId ?? (typeof response.response?.userHandle === 'string' ? Buffer.from(response.response.userHandle, 'base64url').toString('utf8') : undefined);
      if (!owner) return undefined;
      const passkey = (await deps.factors().get(owner)).passkeys.find((p) => p.credentialId === response.id);
      const refused = (): undefined => {
        events?.raise({ type: 'second_factor.failed', subject: owner, via, reason: 'wrong' });
        return undefined;
      };
      if (!passkey) return refused();
      let verified;
      try {
        verified = await (await webauthn()).verifyAuthenticationResponse({
          response, expectedOrigin: origin, expectedRPID: rpId, requireUserVerification: subjectId === undefined,
          expectedChallenge: challengeFor(subjectId === undefined ? 'passwordless' : 'second-factor', subjectId),
          credential: { id: passkey.credentialId, publicKey: unb64(passkey.publicKey), counter: passkey.counter, transports: passkey.transports as AuthenticatorTransport[] },
        });
      } catch {
        // A counter that did not grow, a wrong signature, origin or challenge: the library says which; the event says only that it failed.
        return refused();
      }
      if (!verified.verified) return refused();
      const info = verified.authenticationInfo;
      if (!(await deps.factors().usePasskey(owner, passkey.credentialId, passkey.counter, info.newCounter, clock.now()))) return refused();
      events?.raise({ type: 'second_factor.used', subject: owner, factor: 'passkey', via });
      return { subject: owner, amr: amrOf(info.credentialBackedUp, info.userVerified) };
    },
    async list(subjectId) {
      return (await deps.factors().get(subjectId)).passkeys;
    },
    async rename(subjectId, credentialId, name) {
      const clean = passkeyName(name);
      return clean !== undefined && deps.factors().renamePasskey(subjectId, credentialId, clean);
    },
    async remove(subjectId, credentialId) {
      const removed = await deps.factors().removePasskey(subjectId, credentialId);
      if (removed) events?.raise({ type: 'second_factor.removed', subject: subjectId, factor: 'passkey', by: 'user' });
      return removed;
    },
  };
}

/** A name as a person typed it: trimmed, no control characters, at most 64 characters; none when empty. */
function passkeyName(typed: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  const clean = typed.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, 64).trim();
  return clean === '' ? undefined : clean;
}

/** A new name for a passkey when the person gave none. */
export const defaultPasskeyName = (): string => `Passkey ${randomBytes(2).toString('hex')}`;
