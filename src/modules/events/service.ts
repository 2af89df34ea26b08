import type { ListParams } from '../../http/schemas.js';
import { periodOf } from '../analytics/service.js';
import type { Ctx } from '../bulk/service.js';
import { listEvents as selectEvents, type EventRecord, type EventType } from './store.js';

export interface EventListQuery extends ListParams {
  type?: EventType;
  linkId?: string;
  customerId?: string;
  customerExternalId?: string;
  startDate?: string;
  endDate?: string;
}

/**
 * The workspace's leads and sales as one list (an extension of api.md). Every filter is read
 * within the workspace, so another workspace's link or customer id matches nothing (an empty
 * list), as GET /api/analytics does with a foreign linkId. Dates are read and clamped exactly
 * as there.
 */
export async function listEvents(ctx: Ctx, q: EventListQuery): Promise<EventRecord[]> {
  const period = periodOf(q);
  if (period === 'empty') return [];
  const filter = {
    workspaceId: ctx.workspace.id,
    id: q.id,
    type: q.type,
    linkId: q.linkId,
    customerId: q.customerId,
    customerExternalId: q.customerExternalId,
    ...period,
  };
  return selectEvents(ctx.db, filter, { take: q.take, skip: q.skip, sort: q.sort });
}
