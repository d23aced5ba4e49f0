/**
 * A WebAuthn authenticator in software for the passkey tests (issue 35): ES256 keys from
 * node:crypto and a CBOR encoder of its own (only what attestation `none` and a COSE EC2 key
 * need), independent of the library the service verifies with. It answers the options the
 * service gives, keeps its signature counter, and can be told to send any counter.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

type Cbor = number | string | Uint8Array | ReadonlyMap<number | string, Cbor>;

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
}

/** RFC 8949 §3: unsigned and negative integers, byte and text strings, maps. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64 = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string): Buffer => createHash('sha256').update(data).digest();
const counterBytes = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  counter = 0;
  userHandle: string | undefined;

  constructor(readonly origin: string) {
    ({ privateKey: this.privateKey, publicKey: this.publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' }));
  }

  private get rpIdHash(): Buffer {
    return sha256(new URL(this.origin).hostname);
  }

  /** The answer to `navigator.credentials.create` for these options (as the browser library sends it). */
  register(options: { challenge: string; user: { id: string } }): string {
    this.userHandle = options.user.id;
    const jwk = this.publicKey.export({ format: 'jwk' });
    const cose = cbor(new Map<number, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
    const idLength = Buffer.from([0, this.credentialId.length]);
    // UP | UV | AT
    const authData = Buffer.concat([this.rpIdHash, Buffer.from([0x01 | 0x04 | 0x40]), counterBytes(this.counter), Buffer.alloc(16), idLength, this.credentialId, cose]);
    const clientData = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: this.origin, crossOrigin: false });
    const attestation = cbor(new Map<string, Cbor>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    return JSON.stringify({
      id: b64(this.credentialId), rawId: b64(this.credentialId), type: 'public-key', clientExtensionResults: {}, authenticatorAttachment: 'platform',
      response: { clientDataJSON: b64(clientData), attestationObject: b64(attestation), transports: ['internal'] },
    });
  }

  /** The answer to `navigator.credentials.get`; the counter grows by one unless `counter` is given. */
  assert(options: { challenge: string }, { counter, origin }: { counter?: number; origin?: string } = {}): string {
    this.counter = counter ?? this.counter + 1;
    const authData = Buffer.concat([this.rpIdHash, Buffer.from([0x01 | 0x04]), counterBytes(this.counter)]);
    const clientData = JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: origin ?? this.origin, crossOrigin: false });
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), { key: this.privateKey, dsaEncoding: 'der' });
    return JSON.stringify({
      id: b64(this.credentialId), rawId: b64(this.credentialId), type: 'public-key', clientExtensionResults: {}, authenticatorAttachment: 'platform',
      response: { clientDataJSON: b64(clientData), authenticatorData: b64(authData), signature: b64(signature), ...(this.userHandle ? { userHandle: this.userHandle } : {}) },
    });
  }
}
