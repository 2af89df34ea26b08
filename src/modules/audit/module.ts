import { plugin, type ModuleRegistration } from '../../wiring.js';
import type { AuditMissing } from './hook.js';
import { auditRoutes } from './routes.js';
import { forgetOldAudit } from './service.js';

/**
 * The audit module; `missing`: what an audited success whose service wrote no entry does besides
 * the error log — 'log' (production, the default list's) or 'fail', a 500 (test apps; audit/hook.ts).
 */
export const auditModuleWith = (o: { missing: AuditMissing }): ModuleRegistration => ({
  name: 'audit',
  setUp: (w) => ({
    plugins: [plugin(auditRoutes, { db: w.database.db, clock: w.clock, roleOf: w.roleOf, auditMissing: o.missing })],
    jobs: [
      {
        name: 'audit.retention',
        run: async (now) => {
          const gone = await forgetOldAudit({ ctx: { db: w.database.db, now }, input: { days: w.config.auditRetentionDays } });
          if (gone.entries + gone.signIns > 0) w.logger.info(gone, 'deleted audit entries and sign-ins past AUDIT_RETENTION_DAYS');
        },
      },
    ],
  }),
});

/** First in the list: its hooks write the audit entry of every route registered after it (operations.md §15). */
export const auditModule = auditModuleWith({ missing: 'log' });
