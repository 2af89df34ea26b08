import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Sealer } from '../../core/sealed.js';
import type { RedirectLink } from './resolve.js';

export const PASSWORD_COOKIE = 'lt_pass';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * The signed cookie that remembers a correct password. It binds the link and its current
 * sealed password, so changing the password (a new seal) invalidates every earlier cookie.
 */
export class PasswordGate {
  constructor(
    private readonly secret: string,
    private readonly sealer: Sealer,
  ) {}

  token(link: RedirectLink): string {
    return createHmac('sha256', this.secret)
      .update(`pass:${link.id}:${link.passwordSealed ?? ''}`)
      .digest('base64url');
  }

  unlocked(link: RedirectLink, cookieHeader: string | undefined): boolean {
    if (!cookieHeader) return false;
    const expected = Buffer.from(this.token(link));
    for (const part of cookieHeader.split(';')) {
      const [name, value] = part.trim().split('=');
      if (name !== PASSWORD_COOKIE || !value) continue;
      const given = Buffer.from(value);
      if (given.length === expected.length && timingSafeEqual(given, expected)) return true;
    }
    return false;
  }

  /** Constant-time comparison of the attempt with the link's password. */
  matches(link: RedirectLink, attempt: string): boolean {
    if (!link.passwordSealed) return true;
    return timingSafeEqual(digest(attempt), digest(this.sealer.open('link-password', link.passwordSealed)));
  }

  cookie(link: RedirectLink, path: string): string {
    return `${PASSWORD_COOKIE}=${this.token(link)}; Path=${path}; Max-Age=2592000; HttpOnly; Secure; SameSite=Lax`;
  }
}
