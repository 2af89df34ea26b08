import { invalidQuery } from '../../errors.js';
import type { ListParams } from '../../http/schemas.js';
import type { Ctx } from '../bulk/service.js';
import { groupClicks, listClicks, type ClickRecord, type GroupBy, type GroupRecord, type Interval } from './store.js';

export interface AnalyticsQuery extends ListParams {
  linkId?: string;
  partnerId?: string;
  startDate?: string;
  endDate?: string;
  groupBy?: GroupBy;
  interval?: Interval;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * A date bound. A date alone means that whole UTC day: startDate from its first instant,
 * endDate up to (not including) the next day's first instant, whatever the timestamps' precision.
 */
export function parseBound(field: 'startDate' | 'endDate', value: string | undefined): { at: Date; exclusive: boolean } | undefined {
  if (value === undefined) return undefined;
  if (!DATE_ONLY.test(value) && !DATE_TIME.test(value)) throw invalidQuery(field, 'format', { format: 'ISO 8601 date or date-time' });
  const dateOnly = DATE_ONLY.test(value);
  const at = dateOnly ? new Date(`${value}T00:00:00.000Z`) : new Date(value);
  if (Number.isNaN(at.getTime()) || (dateOnly && at.toISOString().slice(0, 10) !== value)) {
    throw invalidQuery(field, 'format', { format: 'ISO 8601 date or date-time' });
  }
  if (dateOnly && field === 'endDate') return { at: new Date(at.getTime() + 86_400_000), exclusive: true };
  return { at, exclusive: false };
}

/** Click records (operations.md §4), or per-group totals with groupBy. Bots are never counted. */
export async function analytics(ctx: Ctx, q: AnalyticsQuery): Promise<ClickRecord[] | GroupRecord[]> {
  const start = parseBound('startDate', q.startDate);
  const end = parseBound('endDate', q.endDate);
  if (start && end && (start.at > end.at || (end.exclusive && start.at >= end.at))) throw invalidQuery('startDate', 'start_after_end');
  if (q.interval && q.groupBy !== 'timeseries') throw invalidQuery('interval', 'interval_needs_timeseries');
  const filter = { workspaceId: ctx.workspace.id, linkId: q.linkId, partnerId: q.partnerId, start: start?.at, end: end?.at, endExclusive: end?.exclusive };
  const page = { take: q.take, skip: q.skip, sort: q.sort };
  if (!q.groupBy) return listClicks(ctx.db, filter, page);
  return groupClicks(ctx.db, filter, q.groupBy, q.interval ?? 'day', page);
}
