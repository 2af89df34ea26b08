import type { Ctx } from '../../core/context.js';
import { invalid } from '../../core/errors.js';
import type { Tx } from '../../db/connect.js';
import type { Indexed } from '../bulk/service.js';
import { groupIdsOf } from '../program/service.js';
import { freeKeys, keyStem } from './referral-keys.js';
import type { PartnerStatus } from './schemas.js';
import { couponHolders, dropCoupons, keysOfStems, referralKeyHolders, releaseValues, statusesOf, tenantHolders, type Holder } from './standing-store.js';

/**
 * The checks and preparations of a partner write (operations.md §18 "Partners in a program"),
 * in its transaction before the rows are written, a fixed number of statements whatever the
 * count: status moves, groups, the values unique in the workspace (against the request and the
 * stored ones), and each new partner's default referral key.
 */

/** Where each status may move (the same status again is no move). */
const MOVES: Record<PartnerStatus, readonly PartnerStatus[]> = {
  invited: ['approved'],
  pending: ['approved', 'rejected'],
  approved: ['banned', 'archived'],
  rejected: [],
  banned: ['approved'],
  archived: ['approved'],
};

/** What a new partner may start as. */
const START: readonly PartnerStatus[] = ['invited', 'pending', 'approved'];

interface Write {
  inserts: Indexed[];
  updates: Indexed[];
}

export async function checkStanding(tx: Tx, ctx: Ctx, write: Write): Promise<void> {
  const all = [...write.inserts, ...write.updates].sort((a, b) => a.index - b.index);
  const ws = ctx.workspace.id;
  for (const { index, item } of write.inserts) {
    if (item.status !== undefined && !START.includes(item.status as PartnerStatus)) {
      throw invalid(`[${index}].status`, 'status_on_create', { value: item.status as string });
    }
  }
  await checkMoves(tx, ws, write.updates);
  await checkGroups(tx, ctx, all);
  const freed = (field: string) => new Set(write.updates.filter((u) => u.item[field] !== undefined).map((u) => u.item.id as string));
  const keys = given(all, 'referralKey', (v) => v.toLowerCase());
  assertFree(keys, await referralKeyHolders(tx, ws, uniq(keys)), freed('referralKey'));
  const tenants = given(all, 'tenantId', (v) => v);
  assertFree(tenants, await tenantHolders(tx, ws, uniq(tenants)), freed('tenantId'));
  const codes = givenCodes(all);
  assertFree(codes, await couponHolders(tx, ws, uniq(codes)), freed('couponCodes'));
  await releaseValues(tx, ws, { referralKey: [...freed('referralKey')], tenantId: [...freed('tenantId')] });
  await dropCoupons(tx, ws, [...freed('couponCodes')]);
  await defaultKeys(tx, ws, write.inserts, keys);
}

/** A value given in the request (lower-cased where uniqueness ignores case): its item's index, the field naming it. */
interface Given {
  value: string;
  index: number;
  field: string;
}

const uniq = (values: Given[]) => [...new Set(values.map((v) => v.value))];

function given(items: Indexed[], field: string, normal: (v: string) => string): Given[] {
  return items
    .filter((i) => typeof i.item[field] === 'string')
    .map(({ index, item }) => ({ value: normal(item[field] as string), index, field: `[${index}].${field}` }));
}

function givenCodes(items: Indexed[]): Given[] {
  return items.flatMap(({ index, item }) =>
    ((item.couponCodes as string[] | undefined) ?? []).map((code, k) => ({
      value: code.toLowerCase(),
      index,
      field: `[${index}].couponCodes[${k}]`,
    })),
  );
}

/**
 * Each value once in the request, and held by no stored partner but those whose entries replace
 * theirs in this request (`freed`): else 400 naming the value's field.
 */
function assertFree(values: Given[], holders: Holder[], freed: Set<string>): void {
  const first = new Map<string, Given>();
  for (const v of values) {
    const seen = first.get(v.value);
    if (seen) throw invalid(v.field, 'duplicate_in_request', { other: seen.index });
    first.set(v.value, v);
  }
  const held = new Map(holders.filter((h) => !freed.has(h.partnerId)).map((h) => [h.value, h.partnerId]));
  for (const v of values) {
    if (held.has(v.value)) throw invalid(v.field, 'taken_in_workspace', { value: v.value });
  }
}

/**
 * The status each moving entry of a write found (its item as the key), for what the write does
 * after (an application decided: the applicant is mailed). Read under the rows' locks, so two
 * writes at once cannot both see a partner pending.
 */
export const statusBefore = new WeakMap<object, PartnerStatus>();

async function checkMoves(tx: Tx, workspaceId: string, updates: Indexed[]): Promise<void> {
  const moving = updates.filter((u) => u.item.status !== undefined);
  const stored = await statusesOf(
    tx,
    workspaceId,
    moving.map((u) => u.item.id as string),
    true,
  );
  for (const { index, item } of moving) {
    const from = stored.get(item.id as string) as PartnerStatus;
    const to = item.status as PartnerStatus;
    if (from !== to && !MOVES[from].includes(to)) throw invalid(`[${index}].status`, 'status_move', { from, to });
    statusBefore.set(item, from);
  }
}

async function checkGroups(tx: Tx, ctx: Ctx, items: Indexed[]): Promise<void> {
  const named = items.filter((i) => typeof i.item.groupId === 'string');
  if (named.length === 0) return;
  for (const i of named) i.item.groupId = (i.item.groupId as string).toLowerCase();
  const found = await groupIdsOf({
    ctx: { ...ctx, db: tx },
    input: [...new Set(named.map((i) => i.item.groupId as string))],
  });
  for (const { index, item } of named) if (!found.has(item.groupId as string)) throw invalid(`[${index}].groupId`, 'not_found');
}

/** Gives each new partner without a referral key its default one, clear of stored keys and the request's. */
async function defaultKeys(tx: Tx, workspaceId: string, inserts: Indexed[], requested: Given[]): Promise<void> {
  const keyless = inserts.filter((i) => i.item.referralKey === undefined);
  if (keyless.length === 0) return;
  const stems = keyless.map((i) => keyStem(i.item.name as string, i.item.id as string));
  const taken = new Set([...(await keysOfStems(tx, workspaceId, [...new Set(stems)])), ...requested.map((r) => r.value)]);
  freeKeys(stems, taken).forEach((key, k) => (keyless[k]!.item.referralKey = key));
}
