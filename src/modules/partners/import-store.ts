/**
 * What an affiliate-tool import (operations.md §18 "Moving in") reads and writes of partners
 * beside the bulk writes: the live partners a file's rows name (by e-mail or referral key,
 * ignoring case), and payout e-mails set for partners who have no payout details yet.
 */
import { sql } from 'drizzle-orm';
import type { Sealer } from '../../core/sealed.js';
import { inList, rows, type Conn } from '../../db/connect.js';

export interface MatchedPartner {
  id: string;
  email: string | null;
  referralKey: string | null;
  couponCodes: string[];
  status: string;
  defaultLinkId: string | null;
  hasPayoutDetails: boolean;
}

/** Live partners whose e-mail or referral key (both given lower-cased) is one of these. */
export function partnersNamed(conn: Conn, workspaceId: string, emails: string[], keys: string[]): Promise<MatchedPartner[]> {
  if (emails.length === 0 && keys.length === 0) return Promise.resolve([]);
  const byEmail = emails.length ? sql`lower(p.email) ${inList(emails, 'text')}` : sql`false`;
  const byKey = keys.length ? sql`lower(p.referral_key) ${inList(keys, 'text')}` : sql`false`;
  return rows<MatchedPartner>(
    conn,
    sql`SELECT p.id, p.email, p.referral_key AS "referralKey", p.status, p.default_link_id AS "defaultLinkId",
          p.payout_method IS NOT NULL AS "hasPayoutDetails",
          COALESCE((SELECT jsonb_agg(c.code ORDER BY c.position) FROM partner_coupon_codes c WHERE c.partner_id = p.id), '[]'::jsonb) AS "couponCodes"
        FROM partners p WHERE p.workspace_id = ${workspaceId}::uuid AND p.deleted_at IS NULL AND (${byEmail} OR ${byKey})
        ORDER BY p.created_at, p.id`,
  );
}

/** `j•••@example.com`: the first character of the local part, then the domain. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, Math.min(1, at))}•••${email.slice(at)}`;
}

/**
 * Sets each partner's payout method and e-mail (sealed, and masked beside it) where the partner
 * has none, and `payout_details_changed_at` to `now` (an import's setting counts as a change,
 * §18 "Payouts"); the partners set.
 */
export async function setPayoutEmails(
  conn: Conn,
  workspaceId: string,
  sealer: Sealer,
  now: Date,
  input: { partnerId: string; method: 'paypal' | 'wise'; email: string }[],
): Promise<string[]> {
  if (input.length === 0) return [];
  const values = input.map((p) => ({
    id: p.partnerId,
    method: p.method,
    sealed: sealer.seal('payout-details', JSON.stringify({ email: p.email })),
    masked: maskEmail(p.email),
  }));
  const set = await rows<{ id: string }>(
    conn,
    sql`UPDATE partners p SET payout_method = v.method, payout_details_sealed = v.sealed, payout_destination_masked = v.masked,
          payout_details_changed_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
        FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb) AS v(id uuid, method text, sealed text, masked text)
        WHERE p.id = v.id AND p.workspace_id = ${workspaceId}::uuid AND p.payout_method IS NULL AND p.deleted_at IS NULL
        RETURNING p.id`,
  );
  return set.map((r) => r.id);
}
