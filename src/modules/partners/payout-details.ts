/**
 * Partners' payout details as payouts read them (operations.md §18 "Payouts"): the method, the
 * masked destination and when they last changed for listing; the sealed details opened only for
 * the provider's file. Written by the partner's own session (the portal) or an import.
 */
import { sql } from 'drizzle-orm';
import type { Ctx } from '../../core/context.js';
import type { Sealer } from '../../core/sealed.js';
import { rows, inList } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';

export interface PayoutProfile {
  id: string;
  name: string;
  status: string;
  method: 'paypal' | 'wise' | 'bank' | null;
  destination: string | null;
  changedAt: string | null;
}

/** Each live partner's status and payout details (masked) by id. */
export async function payoutProfiles({ ctx, input }: { ctx: Pick<Ctx, 'db' | 'workspace'>; input: string[] }): Promise<Map<string, PayoutProfile>> {
  if (input.length === 0) return new Map();
  const found = await rows<PayoutProfile>(
    ctx.db,
    sql`SELECT id, name, status, payout_method AS method, payout_destination_masked AS destination,
          ${sql.raw(isoTimestamp('payout_details_changed_at'))} AS "changedAt"
        FROM partners WHERE workspace_id = ${ctx.workspace.id}::uuid AND id ${inList(input, 'uuid')} AND deleted_at IS NULL`,
  );
  return new Map(found.map((p) => [p.id, p]));
}

export interface PayoutDestination {
  email: string | null;
  holderName: string | null;
  details: string | null;
}

/** The opened payout details of these partners (for a provider's file): never listed, never logged. */
export async function payoutDestinations({
  ctx,
  sealer,
  input,
}: {
  ctx: Pick<Ctx, 'db' | 'workspace'>;
  sealer: Sealer;
  input: string[];
}): Promise<Map<string, PayoutDestination>> {
  if (input.length === 0) return new Map();
  const found = await rows<{ id: string; sealed: string | null }>(
    ctx.db,
    sql`SELECT id, payout_details_sealed AS sealed FROM partners WHERE workspace_id = ${ctx.workspace.id}::uuid AND id ${inList(input, 'uuid')}`,
  );
  return new Map(
    found.map((p) => {
      const opened = p.sealed ? (JSON.parse(sealer.open('payout-details', p.sealed)) as Partial<PayoutDestination>) : {};
      return [p.id, { email: opened.email ?? null, holderName: opened.holderName ?? null, details: opened.details ?? null }];
    }),
  );
}
