/**
 * Figures of the analytics views that are pure arithmetic: a change against an earlier period
 * and the funnel's conversion rates. Pure, so they are unit-tested without a browser.
 */
import type { ByCurrency } from '../../ui/money.js';

/** The change from `before` to `now` in percent; undefined when there is nothing to compare with (before is 0). */
export function changePercent(now: number, before: number): number | undefined {
  if (!Number.isFinite(now) || !Number.isFinite(before) || before === 0) return undefined;
  return ((now - before) / Math.abs(before)) * 100;
}

/** A part of a whole as a percentage; undefined when the whole is 0. */
export function rate(part: number, whole: number): number | undefined {
  return whole > 0 ? (part / whole) * 100 : undefined;
}

/** The funnel clicks → leads → sales: its three conversion rates (percent, undefined with nothing to divide by). */
export function funnelRates(g: { clicks: number; leads: number; sales: number }) {
  return { leadsPerClick: rate(g.leads, g.clicks), salesPerLead: rate(g.sales, g.leads), salesPerClick: rate(g.sales, g.clicks) };
}

/**
 * The funnel's shares, never over 100 %: a step's share of the step before, capped. A click can
 * bring several leads (a sign-up, then a demo request) and a lead several sales (renewals), so
 * a later step can count more than the one before; `several` says so, and the share shows 100 %.
 */
export function funnelShares(g: { clicks: number; leads: number; sales: number }) {
  const share = (part: number, whole: number) => {
    const r = rate(part, whole);
    return { share: r === undefined ? undefined : Math.min(100, r), several: r !== undefined && r > 100 };
  };
  return { leadsOfClicks: share(g.leads, g.clicks), salesOfLeads: share(g.sales, g.leads), salesOfClicks: share(g.sales, g.clicks) };
}

/** The figures of a group that a comparison covers (its previous has the same shape). */
export interface Figures {
  clicks: number;
  leads: number;
  sales: number;
  revenue: ByCurrency;
  visitors?: number;
}

/** Groups' figures added up (revenue currency by currency; visitors only when every group has them). */
export function sumFigures(groups: readonly Figures[]): Figures {
  const out: Figures = { clicks: 0, leads: 0, sales: 0, revenue: {} };
  let visitors: number | undefined = 0;
  for (const g of groups) {
    out.clicks += Number(g.clicks);
    out.leads += Number(g.leads);
    out.sales += Number(g.sales);
    for (const [code, minor] of Object.entries(g.revenue ?? {})) out.revenue[code] = (out.revenue[code] ?? 0) + Number(minor);
    visitors = visitors !== undefined && typeof g.visitors === 'number' ? visitors + g.visitors : undefined;
  }
  if (visitors !== undefined && groups.length > 0) out.visitors = visitors;
  return out;
}

/** The currencies of both periods, in code order: each compared on its own, never converted. */
export function currenciesOf(now: ByCurrency, before: ByCurrency = {}): string[] {
  return [...new Set([...Object.keys(now), ...Object.keys(before)])].sort();
}

/** Whether these rows carry visitors (then the pages show them beside clicks). */
export const hasVisitors = (rows: readonly { visitors?: number }[]) => rows.length > 0 && rows.every((g) => typeof g.visitors === 'number');
