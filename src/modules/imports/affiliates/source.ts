import type { Ctx } from '../../../core/context.js';
import { AppError } from '../../../core/errors.js';
import type { Scope } from '../../../core/scopes.js';
import { findProgram } from '../../program/service.js';
import type { BatchDeps } from '../apply-batch.js';
import type { JobBatch, JobSource, RejectedRow } from '../job-source.js';
import type { AffiliateSource } from './fields.js';
import { affiliateBatches, affiliateHeader, affiliateRowLine, type AffiliateBatch } from './read.js';
import type { PartnerRow, ReferralRow } from './rows.js';
import { writePartnerRows } from './write-partners.js';
import { writeReferralRows } from './write-referrals.js';

/**
 * `source=rewardful|partnerstack|firstpromoter|tolt|tapfiliate` (operations.md §18 "Moving in"):
 * an affiliate tool's export of its partners, or of the customers they referred, read as a CSV
 * (read.ts) and written through the partners, customers, clicks and conversions services.
 */

/** The write scopes each kind of file needs besides the route's own (linksWrite). */
const SCOPES: Record<'partners' | 'referrals', Scope[]> = {
  // A partner's referral key and coupon codes are program fields (§18 "Scopes").
  partners: ['partnersWrite', 'programsWrite'],
  referrals: ['customersWrite', 'conversionsWrite'],
};

async function applyBatch(ctx: Ctx, deps: BatchDeps, batch: AffiliateBatch, afterLine: number, source: AffiliateSource) {
  const rows = batch.rows.filter((r) => affiliateRowLine(r) > afterLine);
  const failures: RejectedRow[] = rows.flatMap((r) => (r.ok ? [] : [{ line: r.line, field: r.field, reason: r.reason, message: r.message }]));
  const partners = rows.flatMap((r) => (r.ok && 'partner' in r ? [r.partner as PartnerRow] : []));
  const referrals = rows.flatMap((r) => (r.ok && 'referral' in r ? [r.referral as ReferralRow] : []));
  const written = partners.length ? await writePartnerRows(ctx, deps, partners) : await writeReferralRows(ctx, referrals, source);
  const all = [...failures, ...written.failures].sort((a, b) => a.line - b.line);
  return { ...written, failures: all.map((f) => ({ ...f, cells: batch.cells.get(f.line) ?? null })) };
}

export function affiliateSource(source: AffiliateSource): JobSource {
  return {
    async check(ctx, file, _options, scopes) {
      const { columns, plan } = affiliateHeader(file, source);
      // Partners join the program (its default group, default links) and customers are won in it: no program, nothing to join.
      if (!(await findProgram({ ctx }))) throw new AppError('program_required');
      const missing = SCOPES[plan.kind].filter((s) => !scopes.has(s));
      if (missing.length) throw new AppError('missing_scopes', { scopes: missing.join(', ') }, { missingScopes: missing });
      let total = 0;
      for await (const batch of affiliateBatches(file, source, ctx.now.getTime())) total += batch.rows.length;
      return { total, columns };
    },
    async *batches(file) {
      for await (const batch of affiliateBatches(file, source, Date.now())) {
        const job: JobBatch = {
          lastLine: affiliateRowLine(batch.rows.at(-1)!),
          count: batch.rows.length,
          endByte: batch.endByte,
          apply: (ctx, deps, afterLine) => applyBatch(ctx, deps, batch, afterLine, source),
        };
        yield job;
      }
    },
  };
}
