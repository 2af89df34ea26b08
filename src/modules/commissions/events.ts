/**
 * The program's webhooks (operations.md §11, §18 Events), written in the transaction of the change
 * that makes them (`ctx.db`), only when an endpoint of the workspace wants the type.
 */
import type { Ctx } from '../../core/context.js';
import { newId } from '../../db/ids.js';
import { exactJson } from '../../core/exact-json.js';
import { eventTypesWanted, recordEvents, type EventType } from '../webhooks/service.js';
import type { CommissionRow } from './store.js';

export type ProgramEventType = 'commission.created' | 'commission.updated' | 'payout.completed' | 'partner.enrolled';

/** How many deliveries were queued; `wanted`: the types already read for this write, if any. */
export async function emitProgramEvents(
  ctx: Ctx,
  type: ProgramEventType,
  records: { updatedAt?: string; createdAt?: string; completedAt?: string | null }[],
  wanted?: ReadonlySet<EventType>,
): Promise<number> {
  if (records.length === 0) return 0;
  const types = wanted ?? (await eventTypesWanted({ ctx, input: { workspaceId: ctx.workspace.id } }));
  if (!types.has(type)) return 0;
  const events = records.map((r) => ({
    id: newId(),
    workspaceId: ctx.workspace.id,
    type,
    // exactJson: a payout's sums may pass 2^53 (bigints, written as their digits).
    body: exactJson({ type, timestamp: r.completedAt ?? r.updatedAt ?? r.createdAt ?? ctx.now.toISOString(), data: r }),
  }));
  return recordEvents({ ctx, input: { events } });
}

export const commissionsCreated = (ctx: Ctx, rows: CommissionRow[], wanted?: ReadonlySet<EventType>) =>
  emitProgramEvents(ctx, 'commission.created', rows, wanted);
export const commissionsUpdated = (ctx: Ctx, rows: CommissionRow[]) => emitProgramEvents(ctx, 'commission.updated', rows);
