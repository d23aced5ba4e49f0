/**
 * Signing keys the service creates are kept in the store encrypted (AES-256-GCM) under a
 * key-encryption key that lives outside the database, given by environment variable or file
 * (`signing.keyEncryptionKeys`), the way IdentityServer protects its stored keys with data
 * protection. A copy of the database then yields no private key.
 *
 * Several key-encryption keys can be configured so one can be rotated: the first in the list
 * seals new keys, every one of them opens what it sealed, and `svc keys rewrap` re-seals every
 * stored key under the first. Each sealed record names its key-encryption key by an id derived
 * from it (a hash, which says nothing about the key itself), so a missing one is named at
 * start-up. The key id and algorithm are the cipher's additional data, so a sealed key cannot be
 * moved onto another record.
 *
 * Without any key-encryption key, keys are stored as plain JWKs (as before), and a record that
 * is sealed stops start-up.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BootError } from '../../config/boot-error.js';
import type { KeySource } from '../../config/schema.js';
import type { SigningKeyRecord } from '../../store/store.js';

/** The stored form of a sealed private JWK (JSON text in the `privateJwk` column). */
interface SealedKey {
  readonly sealed: 'A256GCM';
  /** Id of the key-encryption key (see `kekId`). */
  readonly kek: string;
  readonly iv: string;
  readonly ct: string;
  readonly tag: string;
}

interface KeyEncryptionKey {
  readonly id: string;
  readonly key: Buffer;
}

export interface KeyProtector {
  /** Whether keys are sealed at all (some key-encryption key is configured). */
  readonly enabled: boolean;
  /** Id of the key-encryption key that seals new keys, if any. */
  readonly currentKekId: string | undefined;
  /** The stored form of a private JWK: sealed under the first key-encryption key, or plain without one. */
  seal(kid: string, alg: string, privateJwk: string): string;
  /** The private JWK of a stored record; throws `BootError` (`KEYS_INVALID`) naming the record when it cannot. */
  open(record: SigningKeyRecord): string;
  /** How a record is stored: `"plain"` or the id of the key-encryption key that sealed it. */
  protectionOf(record: SigningKeyRecord): string;
  /** Whether `rewrap` would change the record (plain, or sealed under an older key-encryption key). */
  needsRewrap(record: SigningKeyRecord): boolean;
  /**
   * The same sealing for another stored secret (the page cookie secret): `name` says what it is
   * in a refusal and is the cipher's additional data, so the text opens only as that secret.
   */
  sealSecret(name: string, value: string): string;
  /** The value of a stored secret, sealed or plain; throws `BootError` (`KEYS_INVALID`) naming it when it cannot. */
  openSecret(name: string, stored: string): string;
  /** How a stored secret is kept: `"plain"` or the id of the key-encryption key that sealed it. */
  protectionOfSecret(stored: string): string;
}

/** A short, stable name for a key-encryption key; one-way, so it reveals nothing of the key. */
function kekId(key: Buffer): string {
  return createHash('sha256').update('svc key-encryption key id\0').update(key).digest('base64url').slice(0, 16);
}

function decodeKek(text: string, where: string): Buffer {
  const value = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (bytes.length !== 32 || !/^[A-Za-z0-9+/_=-]+$/.test(value)) {
    throw new BootError(
      'KEYS_INVALID',
      `${where}: expected 32 random bytes as base64 or hex (make one with: openssl rand -base64 32)`,
    );
  }
  return bytes;
}

function readKek(source: KeySource, index: number): KeyEncryptionKey {
  const where = 'path' in source ? `signing.keyEncryptionKeys[${index}] (${source.path})` : `signing.keyEncryptionKeys[${index}] ($${source.env})`;
  let text: string | undefined;
  try {
    text = 'path' in source ? readFileSync(source.path, 'utf8') : process.env[source.env];
  } catch (err) {
    throw new BootError('KEYS_INVALID', `${where}: cannot read the file: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (!text || text.trim() === '') throw new BootError('KEYS_INVALID', `${where}: empty or unset`);
  const key = decodeKek(text, where);
  return { id: kekId(key), key };
}

function parseSealed(text: string): SealedKey | undefined {
  if (!text.startsWith('{"sealed"')) return undefined;
  const value = JSON.parse(text) as SealedKey;
  return value.sealed === 'A256GCM' ? value : undefined;
}

const additionalData = (kid: string, alg: string): Buffer => Buffer.from(`${kid}.${alg}`);

/** Reads every configured key-encryption key once, at start-up. */
export function createKeyProtector(sources: readonly KeySource[]): KeyProtector {
  const keks = sources.map(readKek);
  const byId = new Map(keks.map((k) => [k.id, k]));
  const current = keks[0];

  function sealText(aad: Buffer, text: string): string {
    if (!current) return text;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', current.key, iv);
    cipher.setAAD(aad);
    const ct = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    const sealed: SealedKey = {
      sealed: 'A256GCM', kek: current.id, iv: iv.toString('base64url'), ct: ct.toString('base64url'), tag: cipher.getAuthTag().toString('base64url'),
    };
    return JSON.stringify(sealed);
  }

  /** `what` names the record in a refusal ("signing key <kid> (<alg>)"). */
  function openText(aad: Buffer, stored: string, what: string): string {
    const sealed = parseSealed(stored);
    if (!sealed) return stored;
    const kek = byId.get(sealed.kek);
    if (!kek) {
      throw new BootError(
        'KEYS_INVALID',
        `${what} is encrypted under key-encryption key ${sealed.kek}, ` +
          `which ${keks.length === 0 ? 'is not configured: set signing.keyEncryptionKeys' : `none of signing.keyEncryptionKeys is (configured: ${keks.map((k) => k.id).join(', ')})`}`,
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', kek.key, Buffer.from(sealed.iv, 'base64url'));
      decipher.setAAD(aad);
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new BootError('KEYS_INVALID', `${what} does not decrypt under key-encryption key ${sealed.kek}: the stored record was altered or damaged`);
    }
  }

  // Distinct from every `kid.alg` of a signing key: a kid never holds a NUL.
  const secretData = (name: string): Buffer => Buffer.from(`svc stored secret\0${name}`);

  return {
    enabled: current !== undefined,
    currentKekId: current?.id,
    seal: (kid, alg, privateJwk) => sealText(additionalData(kid, alg), privateJwk),
    open: (record) => openText(additionalData(record.kid, record.alg), record.privateJwk, `signing key ${record.kid} (${record.alg})`),
    protectionOf(record) {
      return parseSealed(record.privateJwk)?.kek ?? 'plain';
    },
    needsRewrap(record) {
      return current !== undefined && parseSealed(record.privateJwk)?.kek !== current.id;
    },
    sealSecret: (name, value) => sealText(secretData(name), value),
    openSecret: (name, stored) => openText(secretData(name), stored, name),
    protectionOfSecret: (stored) => parseSealed(stored)?.kek ?? 'plain',
  };
}
