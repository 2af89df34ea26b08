import type { Logger } from 'pino';
import type { Database } from '../../db/connect.js';
import type { MaintenanceJob } from '../../infra/maintenance.js';
import { maintainClickPartitions } from './store.js';
import { cutReferrerDays } from './referrer-days.js';
import { forgetClickVisitors, forgetPastVisitors } from './visitors.js';

/**
 * The clicks' periodic maintenance, run by the scheduler (infra/maintenance.ts) at start and a
 * minute into each 6-hour period, the first after midnight included: the visitor salts and
 * visitor_days of past UTC days deleted and the click_visitors of clicks older than 24 hours
 * (visitors.ts), past days' referrer URLs folded, and the
 * monthly partitions made ahead and dropped past CLICK_RETENTION_MONTHS (partitions.ts).
 */
export function clickMaintenanceJobs(o: { database: Database; retentionMonths: number | undefined; log: Logger }): MaintenanceJob[] {
  const { database, log } = o;
  return [
    {
      name: 'clicks.visitors',
      run: async () => {
        const forgotten = await forgetPastVisitors(database.db);
        if (forgotten.salts > 0) log.info(forgotten, "deleted past days' visitor salts and visitor days");
        const clickVisitors = await forgetClickVisitors(database.db);
        if (clickVisitors > 0) log.info({ clickVisitors }, 'deleted the visitor and network hashes of clicks older than 24 hours');
      },
    },
    {
      name: 'clicks.referrer-days',
      run: async () => {
        const cut = await cutReferrerDays(database.db);
        if (cut.rows > 0) log.info(cut, "folded past days' referrer URLs beyond each day's top into (other)");
      },
    },
    {
      name: 'clicks.partitions',
      run: async (now) => {
        await maintainClickPartitions(database, now, o.retentionMonths, log);
      },
    },
  ];
}
