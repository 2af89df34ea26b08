/**
 * A software authenticator for API tests: real ES256 keys (node:crypto), real attestation
 * ('none' format) and assertion objects, so the server's WebAuthn library verifies real
 * signatures — no browser. Builds what @simplewebauthn/browser would send (the JSON form).
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

const b64url = (b: Uint8Array | string) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

/** The little CBOR the attestation needs: unsigned/negative integers, byte and text strings, maps. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map) return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  throw new Error(`cbor: ${typeof value}`);
}

export const FLAGS = { UP: 0x01, UV: 0x04, AT: 0x40 } as const;

export interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
  excludeCredentials?: { id: string }[];
}
export interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
  userVerification?: string;
}

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly cose: Buffer;
  userHandle = '';
  counter: number;

  /** `counter`: the signature counter to start from (0: an authenticator that keeps none). */
  constructor(counter = 1) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.cose = cbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    this.counter = counter;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags | (attested ? FLAGS.AT : 0)]), count, ...(attested ? [attested] : [])]);
  }

  /** The answer of navigator.credentials.create to `options` (what startRegistration sends). */
  register(options: CreationOptions, opts: { origin: string; rpId?: string }) {
    const rpId = opts.rpId ?? options.rp.id!;
    this.userHandle = options.user.id;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.cose]);
    const authData = this.authData(rpId, FLAGS.UP | FLAGS.UV, this.counter, attested);
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: opts.origin, crossOrigin: false });
    const attestationObject = cbor(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * The answer of navigator.credentials.get to `options` (what startAuthentication sends). Each
   * assertion moves the counter forward unless `counter` is given; `signWith` signs with
   * another key (a forged answer); `uv: false` leaves out user verification.
   */
  assert(options: RequestOptions, opts: { origin: string; uv?: boolean; counter?: number; signWith?: SoftAuthenticator }) {
    if (opts.counter === undefined && this.counter > 0) this.counter += 1;
    const counter = opts.counter ?? this.counter;
    const authData = this.authData(options.rpId!, FLAGS.UP | (opts.uv === false ? 0 : FLAGS.UV), counter);
    const clientDataJSON = JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: opts.origin, crossOrigin: false });
    const signer = opts.signWith ?? this;
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), signer.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: this.userHandle || undefined,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
