import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * A link password in the first sealed form (`v1.<iv>.<ciphertext>.<tag>`), as the removed
 * PasswordBox wrote it before core/sealed.ts: the fixture for values already in databases.
 */
export function sealV1(secret: string, plain: string): string {
  const key = Buffer.from(hkdfSync('sha256', secret, 'linktrail', 'link-password-v1', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}
