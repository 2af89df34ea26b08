import { resourceStore } from '../../db/resource-table.js';
import type { PartnerStatus } from './schemas.js';

export interface PartnerRow {
  id: string;
  name: string;
  email: string | null;
  image: string | null;
  status: PartnerStatus;
  /** The column: null is the group `default`. */
  groupId: string | null;
  referralKey: string | null;
  couponCodes: string[];
  tenantId: string | null;
  userId: string | null;
  defaultLinkId: string | null;
  payoutMethod: 'paypal' | 'wise' | 'bank' | null;
  /** Masked (j•••@example.com); the sealed details are opened only for a payout's file. */
  payoutDestination: string | null;
  payoutDetailsChangedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A partner's coupon codes in their order; a write's rows get theirs from the write (service.ts). */
const COUPON_CODES = `COALESCE((SELECT jsonb_agg(c.code ORDER BY c.position) FROM partner_coupon_codes c WHERE c.partner_id = t.id), '[]'::jsonb) AS "couponCodes"`;

export const partnerStore = resourceStore<PartnerRow>({
  table: 'partners',
  softDelete: true,
  // api.md's soft delete archives the partner (operations.md §18): they stop earning.
  softDeleteSets: `status = 'archived'`,
  columns: [
    { field: 'name', column: 'name', type: 'text' },
    { field: 'email', column: 'email', type: 'text' },
    { field: 'image', column: 'image', type: 'text' },
    { field: 'status', column: 'status', type: 'text', insertDefault: `'approved'` },
    { field: 'groupId', column: 'group_id', type: 'uuid' },
    { field: 'referralKey', column: 'referral_key', type: 'text' },
    { field: 'tenantId', column: 'tenant_id', type: 'text' },
    { field: 'userId', column: 'user_id', type: 'uuid', readOnly: true },
    { field: 'defaultLinkId', column: 'default_link_id', type: 'uuid', readOnly: true },
    { field: 'payoutMethod', column: 'payout_method', type: 'text', readOnly: true },
    { field: 'payoutDestination', column: 'payout_destination_masked', type: 'text', readOnly: true },
    { field: 'payoutDetailsChangedAt', column: 'payout_details_changed_at', type: 'timestamptz', readOnly: true },
  ],
  extraSelect: [COUPON_CODES],
});
