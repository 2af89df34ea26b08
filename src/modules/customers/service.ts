import { audit } from '../../core/audit.js';
import { invalid } from '../../core/errors.js';
import type { ListParams } from '../../core/list-params.js';
import { assertBulkSize, assertDistinct, assertHttps, bulkResource } from '../bulk/service.js';
import { withTransaction } from '../../core/transaction.js';
import { type Ctx } from '../../core/context.js';
import { type Item } from '../../core/items.js';
import { normalizeEmail, emailKey } from '../../core/email.js';
import { customerStore, customersByEmailLocal, customersByExternalId, setWinningPartners, type CustomerRow } from './store.js';

export type { CustomerRow } from './store.js';

export interface CustomerListQuery extends ListParams {
  externalId?: string;
}

const customers = bulkResource({
  store: customerStore,
  fields: ['name', 'email', 'avatar'],
  requiredOnInsert: [],
  checkItem: (item, i) => assertHttps(item.avatar, `[${i}].avatar`),
  listFilters: (q: CustomerListQuery) => (q.externalId !== undefined ? [{ column: 'external_id', value: q.externalId, type: 'text' as const }] : []),
  importOnlyFields: ['externalId'],
});

/** For imports (operations.md §13): which ids exist here or elsewhere, the live ones as listed, and writes keeping ids. */
export const { holders: customerHolders, byIds: customersByIds, importRecords: importCustomers } = customers;

/** The workspace's active customers with these external ids: externalId → id (an import merges a customer into the one it already is). */
export async function customerIdsByExternalId({ ctx, input }: { ctx: Ctx; input: string[] }): Promise<Map<string, string>> {
  return new Map((await customersByExternalId(ctx.db, ctx.workspace.id, input)).map((c) => [c.externalId, c.id]));
}

/**
 * The external ids of the workspace's active customers with this e-mail, compared as
 * core/email.ts normalizes addresses (case, a trailing dot, an internationalized domain).
 */
export async function customerExternalIdsByEmail({ ctx, input }: { ctx: Ctx; input: { email: string } }): Promise<string[]> {
  const email = normalizeEmail(input.email);
  if (!email) return [];
  const candidates = await customersByEmailLocal(ctx.db, ctx.workspace.id, email.slice(0, email.lastIndexOf('@')));
  return candidates.filter((c) => emailKey(c.email) === email).map((c) => c.externalId);
}

export const listCustomers = customers.list;

/** Every customer of the workspace, oldest first, in keyset pages (the NDJSON export reads these). */
export const workspaceCustomerPages = customers.pages;

/** Soft delete by id; their events stay. */
export const deleteCustomers = customers.remove;

/**
 * Updates existing customers, each found by id or else by externalId; never creates. An entry
 * matching no active customer fails the request. Results in input order.
 */
export async function updateCustomers({ ctx, input }: { ctx: Ctx; input: Item[] }): Promise<CustomerRow[]> {
  assertBulkSize(ctx.workspace, input.length);
  input.forEach((item, i) => {
    if (item.id === undefined && item.externalId === undefined) throw invalid(`[${i}].id`, 'required');
    if (!['name', 'email', 'avatar'].some((f) => item[f] !== undefined)) throw invalid(`[${i}]`, 'nothing_to_update');
    assertHttps(item.avatar, `[${i}].avatar`);
  });
  return withTransaction(ctx.db, async (tx) => {
    const byExternal = new Map(
      (
        await customersByExternalId(
          tx,
          ctx.workspace.id,
          input.filter((i) => i.id === undefined).map((i) => i.externalId as string),
        )
      ).map((c) => [c.externalId, c.id]),
    );
    const ids = input.map((item) => (item.id !== undefined ? (item.id as string).toLowerCase() : byExternal.get(item.externalId as string)));
    ids.forEach((id, i) => {
      if (id === undefined) throw invalid(`[${i}].externalId`, 'not_found');
    });
    assertDistinct(ids, (i) => `[${i}]`);
    const found = await customerStore.existing(tx, ctx.workspace.id, ids as string[]);
    ids.forEach((id, i) => {
      if (!found.has(id!)) throw invalid(`[${i}].id`, 'not_found');
    });
    const items = input.map((item, i) => {
      const out: Item = { id: ids[i] };
      for (const f of ['name', 'email', 'avatar']) if (item[f] !== undefined) out[f] = item[f];
      return out;
    });
    const updated = await customerStore.updateMany(tx, ctx.workspace.id, items);
    await audit(ctx, tx, { ids: updated.map((c) => c.id), counts: { updated: updated.length } });
    return updated;
  });
}

/** Each customer won for their partner unless already won (an affiliate-tool import's referrals), in one statement in the caller's transaction; the customers won. */
export function winCustomers({ ctx, input }: { ctx: Ctx; input: { customerId: string; partnerId: string }[] }): Promise<string[]> {
  return setWinningPartners(ctx.db, ctx.workspace.id, input);
}

/**
 * The customer won for a partner (their first earning partner) unless already won, as a part of
 * the statement of the commission a conversion earns (commissions' store-earn.ts), in its transaction.
 */
export { winningPartnerSql } from './store.js';
