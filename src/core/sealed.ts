import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { AppError } from './errors.js';

/**
 * Reversible secrets (operations.md, the common rules before §11): values the service must use
 * again, so they cannot be hashed — link passwords, webhook and Stripe signing secrets, TOTP
 * seeds, OIDC client secrets. Sealed with AES-256-GCM under a key derived per purpose from
 * SECRET, so a copy of the database alone reveals none of them, and a value sealed for one
 * purpose never opens as another.
 *
 * Sealed form: `s2.<keyId>.<iv>.<ciphertext>.<tag>` (base64url). The key id (8 characters,
 * derived from the key, revealing nothing of it) says which SECRET sealed the value, so after a
 * rotation values sealed under SECRET_PREVIOUS still open, and `needsReseal` finds them.
 * Link passwords sealed before this form (`v1.<iv>.<ciphertext>.<tag>`) open with the same key.
 */
export const SEAL_PURPOSES = [
  'link-password',
  'webhook-secret',
  'webhook-body',
  'stripe-secret',
  'totp-seed',
  'oidc-client-secret',
  'mail-message',
  'payout-details',
  'publishable-key',
] as const;
export type SealPurpose = (typeof SEAL_PURPOSES)[number];

interface Key {
  id: string;
  bytes: Buffer;
}

function deriveKey(secret: string, purpose: SealPurpose): Key {
  // The same derivation as the first link-password box, so its values open unchanged.
  const bytes = Buffer.from(hkdfSync('sha256', secret, 'linktrail', `${purpose}-v1`, 32));
  return { id: createHash('sha256').update('linktrail key id').update(bytes).digest('base64url').slice(0, 8), bytes };
}

export class Sealer {
  private readonly keys = new Map<SealPurpose, { current: Key; previous?: Key }>();

  constructor(secret: string, previousSecret?: string) {
    for (const purpose of SEAL_PURPOSES) {
      this.keys.set(purpose, { current: deriveKey(secret, purpose), previous: previousSecret ? deriveKey(previousSecret, purpose) : undefined });
    }
  }

  seal(purpose: SealPurpose, plain: string): string {
    const key = this.keysOf(purpose).current;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['s2', key.id, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /**
   * The plain value; throws AppError('secret_unopenable', a 503: the operator's to fix, not the
   * caller's) for a value altered, sealed for another purpose, or under a SECRET no longer known.
   */
  open(purpose: SealPurpose, sealed: string): string {
    try {
      return this.openOrThrow(purpose, sealed);
    } catch {
      throw new AppError('secret_unopenable');
    }
  }

  private openOrThrow(purpose: SealPurpose, sealed: string): string {
    const parts = sealed.split('.');
    if (parts[0] === 'v1' && parts.length === 4 && purpose === 'link-password') return this.openLegacy(parts as [string, string, string, string]);
    if (parts[0] !== 's2' || parts.length !== 5) throw new Error('unrecognised sealed value');
    const [, keyId, iv, body, tag] = parts as [string, string, string, string, string];
    const key = this.keyById(purpose, keyId);
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Whether a sealed value is not under the current SECRET in the current form (what a reseal moves). */
  needsReseal(purpose: SealPurpose, sealed: string): boolean {
    const [version, keyId] = sealed.split('.');
    return version !== 's2' || keyId !== this.keysOf(purpose).current.id;
  }

  private keysOf(purpose: SealPurpose) {
    const keys = this.keys.get(purpose);
    if (!keys) throw new Error(`unknown seal purpose ${purpose}`);
    return keys;
  }

  private keyById(purpose: SealPurpose, keyId: string): Key {
    const { current, previous } = this.keysOf(purpose);
    if (keyId === current.id) return current;
    if (previous && keyId === previous.id) return previous;
    throw new Error('sealed under a SECRET that is neither SECRET nor SECRET_PREVIOUS');
  }

  /** `v1.<iv>.<ciphertext>.<tag>`: a link password sealed before key ids, without associated data. */
  private openLegacy([, iv, body, tag]: [string, string, string, string]): string {
    const { current, previous } = this.keysOf('link-password');
    for (const key of previous ? [current, previous] : [current]) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // not this key: try the next
      }
    }
    throw new Error('sealed under a SECRET that is neither SECRET nor SECRET_PREVIOUS');
  }
}
