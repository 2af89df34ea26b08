/**
 * Partners' payout details as payouts read them (operations.md §18 "Payouts"): the method, the
 * masked destination and when they last changed for listing; the sealed details opened only for
 * the provider's file. Written by the partner's own session (the portal) or an import.
 */
import { sql } from 'drizzle-orm';
import type { Ctx } from '../../core/context.js';
import type { Sealer } from '../../core/sealed.js';
import { rows, inList, type Conn } from '../../db/connect.js';
import { isoTimestamp } from '../../db/resource-table.js';
import { maskEmail } from './import-store.js';

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

export type PayoutMethod = 'paypal' | 'wise' | 'bank';

export interface PayoutDetailsInput {
  method: PayoutMethod;
  email?: string;
  holderName?: string;
  details?: string;
}

/** What a partner reads of their own details: never the sealed whole, only what names it. */
export interface PayoutDetailsView {
  method: PayoutMethod | null;
  destination: string | null;
  holderName: string | null;
  changedAt: string | null;
}

/** A bank account shown as its last four letters or digits; an e-mail as a•••@example.com. */
export function maskDestination(input: PayoutDetailsInput): string {
  if (input.method !== 'bank') return maskEmail(input.email!);
  const tail = (input.details ?? '').replace(/[^0-9A-Za-z]/g, '').slice(-4);
  return `•••${tail}`;
}

/** This partner's details as they see them, and the payout e-mail before a change (to tell it), in the caller's transaction. */
export async function ownPayoutDetails(
  conn: Conn,
  sealer: Sealer,
  workspaceId: string,
  partnerId: string,
): Promise<PayoutDetailsView & { email: string | null }> {
  const [row] = await rows<{ method: PayoutMethod | null; destination: string | null; sealed: string | null; changedAt: string | null }>(
    conn,
    sql`SELECT payout_method AS method, payout_destination_masked AS destination, payout_details_sealed AS sealed,
          ${sql.raw(isoTimestamp('payout_details_changed_at'))} AS "changedAt"
        FROM partners WHERE workspace_id = ${workspaceId}::uuid AND id = ${partnerId}::uuid AND deleted_at IS NULL`,
  );
  const opened = row?.sealed ? (JSON.parse(sealer.open('payout-details', row.sealed)) as Partial<PayoutDestination>) : {};
  return {
    method: row?.method ?? null,
    destination: row?.destination ?? null,
    holderName: opened.holderName ?? null,
    email: opened.email ?? null,
    changedAt: row?.changedAt ?? null,
  };
}

/** Seals and sets a partner's payout details, `payout_details_changed_at` now (payouts leave fresh details out for 7 days unless named). */
export async function writePayoutDetails(
  conn: Conn,
  sealer: Sealer,
  workspaceId: string,
  partnerId: string,
  now: Date,
  input: PayoutDetailsInput,
): Promise<void> {
  const whole = { email: input.email ?? null, holderName: input.holderName ?? null, details: input.details ?? null };
  await conn.execute(
    sql`UPDATE partners SET payout_method = ${input.method}, payout_details_sealed = ${sealer.seal('payout-details', JSON.stringify(whole))},
          payout_destination_masked = ${maskDestination(input)}, payout_details_changed_at = ${now.toISOString()}::timestamptz,
          updated_at = ${now.toISOString()}::timestamptz
        WHERE workspace_id = ${workspaceId}::uuid AND id = ${partnerId}::uuid AND deleted_at IS NULL`,
  );
}
