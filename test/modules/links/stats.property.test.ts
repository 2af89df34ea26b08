/**
 * A property of GET /api/links?withStats=true&orderBy: for random small workspaces (links with
 * random clicks through the redirect, leads and sales in two currencies through tracking), the
 * stats equal those counted naively from what the test made, and ordering by each figure, both
 * ways, equals sorting those naive figures (ties by creation, in the same direction), whole
 * and page by page (`take`, `skip`). Runs on
 * PGlite, and on PostgreSQL + Redis with DATABASE_URL.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { settle, statsClient, type StatLink } from './stats.helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** One click of a link: whether a lead follows, and a sale's amount and currency if any. */
const clickPlan = fc.record({
  lead: fc.boolean(),
  sale: fc.option(fc.record({ amount: fc.integer({ min: 0, max: 3 }).map((n) => n * 100), currency: fc.constantFrom('usd', 'eur') }), { nil: undefined }),
});
const workspacePlan = fc.array(fc.array(clickPlan, { maxLength: 3 }), { minLength: 2, maxLength: 5 });

type Naive = { clicks: number; leads: number; sales: number; usd: number; eur: number };

type ClickPlan = { lead: boolean; sale?: { amount: number; currency: string } };

function naive(plan: ClickPlan[]): Naive {
  const n: Naive = { clicks: plan.length, leads: 0, sales: 0, usd: 0, eur: 0 };
  for (const c of plan) {
    if (c.lead) n.leads++;
    if (c.sale) {
      n.sales++;
      n[c.sale.currency as 'usd' | 'eur'] += c.sale.amount;
    }
  }
  return n;
}

it('ordering by each figure equals sorting the figures counted naively', async () => {
  await fc.assert(
    fc.asyncProperty(workspacePlan, fc.integer({ min: 1, max: 3 }), async (plan, take) => {
      const api = await statsClient(t);
      const links = await api.links(plan.map(() => ({})));
      for (const [i, clicks] of plan.entries()) {
        for (const c of clicks) {
          const clickId = await api.click(links[i]!);
          if (c.lead) await api.lead(clickId);
          if (c.sale) await api.sale(clickId, c.sale.amount, c.sale.currency);
        }
      }
      await settle(t);
      const figures = new Map(links.map((l, i) => [l.id, naive(plan[i]!)]));
      const byCreation = await api.list('withStats=true&sort=asc');
      expect(byCreation.map((l) => l.id)).toEqual(links.map((l) => l.id));
      for (const [i, l] of byCreation.entries()) {
        const n = figures.get(l.id)!;
        // A currency of the link's sales is a key even at 0; none refunded here.
        const sold = (['eur', 'usd'] as const).filter((c) => plan[i]!.some((p) => p.sale?.currency === c));
        const money = (amount: (c: 'eur' | 'usd') => number) => Object.fromEntries(sold.map((c) => [c, amount(c)]));
        expect(l.stats).toEqual({ clicks: n.clicks, leads: n.leads, sales: n.sales, revenue: money((c) => n[c]), refunded: money(() => 0) });
      }
      for (const [orderBy, figure, extra] of [
        ['clicks', 'clicks', ''],
        ['leads', 'leads', ''],
        ['sales', 'sales', ''],
        ['revenue', 'usd', '&currency=usd'],
        ['revenue', 'eur', '&currency=EUR'],
      ] as const) {
        for (const sort of ['asc', 'desc'] as const) {
          const sign = sort === 'asc' ? 1 : -1;
          const base = sort === 'asc' ? links : [...links].reverse();
          const expected = [...base].sort((a, b) => sign * (figures.get(a.id)![figure] - figures.get(b.id)![figure])).map((l) => l.id);
          const found: StatLink[] = await api.list(`withStats=true&orderBy=${orderBy}&sort=${sort}${extra}`);
          expect(
            found.map((l) => l.id),
            `${orderBy} ${figure} ${sort}`,
          ).toEqual(expected);
          // Page by page, the same order: pages end inside the links with a figure, on their
          // last one, and past them among the links without one.
          const paged: string[] = [];
          for (let skip = 0; skip < links.length + take; skip += take) {
            const page: StatLink[] = await api.list(`withStats=true&orderBy=${orderBy}&sort=${sort}${extra}&take=${take}&skip=${skip}`);
            paged.push(...page.map((l) => l.id));
          }
          expect(paged, `${orderBy} ${figure} ${sort} take=${take}`).toEqual(expected);
        }
      }
    }),
    { numRuns: 8 },
  );
});
