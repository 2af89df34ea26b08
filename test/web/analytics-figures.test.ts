/**
 * The analytics pages' pure pieces (operations.md §14): a change in percent against an earlier
 * period ("—" when there is nothing to compare with), the funnel's conversion rates, figures
 * added up per currency, and the CSV report — its fields (RFC 4180, formula-guarded text,
 * plain decimals unguarded), money in major units per currency, every record as wide as the
 * heading, and a round trip through a CSV reader (csv-parse) as a fast-check property.
 */
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changePercent, funnelRates, funnelShares, sumFigures } from '../../web/src/pages/analytics/figures.js';
import { strings } from '../../web/src/pages/analytics/strings.js';
import { csvField, reportRecords, toCsv } from '../../web/src/pages/analytics/report-csv.js';
import { majorUnits } from '../../web/src/ui/money.js';
import type { components } from '../../web/src/api/schema.js';

type Group = components['schemas']['AnalyticsGroup'];

describe('changePercent and the funnel', () => {
  it('is the change in percent of the earlier figure; undefined when the earlier figure is 0', () => {
    expect(changePercent(5, 2)).toBe(150);
    expect(changePercent(1, 2)).toBe(-50);
    expect(changePercent(2, 2)).toBe(0);
    expect(changePercent(3, 0)).toBeUndefined();
    expect(changePercent(0, 0)).toBeUndefined();
  });

  it('gives leads per click, sales per lead and sales per click; undefined over nothing', () => {
    expect(funnelRates({ clicks: 5, leads: 1, sales: 2 })).toEqual({ leadsPerClick: 20, salesPerLead: 200, salesPerClick: 40 });
    expect(funnelRates({ clicks: 0, leads: 0, sales: 0 })).toEqual({ leadsPerClick: undefined, salesPerLead: undefined, salesPerClick: undefined });
  });

  it('the funnel’s shares never pass 100 %; more leads than clicks (or sales than leads) is flagged instead', () => {
    expect(funnelShares({ clicks: 5, leads: 1, sales: 2 })).toEqual({
      leadsOfClicks: { share: 20, several: false },
      salesOfLeads: { share: 100, several: true },
      salesOfClicks: { share: 40, several: false },
    });
    expect(funnelShares({ clicks: 2, leads: 3, sales: 0 }).leadsOfClicks).toEqual({ share: 100, several: true });
    expect(funnelShares({ clicks: 0, leads: 0, sales: 0 }).leadsOfClicks).toEqual({ share: undefined, several: false });
    fc.assert(
      fc.property(fc.nat(10_000), fc.nat(10_000), fc.nat(10_000), (clicks, leads, sales) => {
        for (const step of Object.values(funnelShares({ clicks, leads, sales }))) {
          if (step.share !== undefined) expect(step.share).toBeLessThanOrEqual(100);
        }
      }),
    );
  });

  it('adds figures up currency by currency, visitors only when every group has them', () => {
    const a = { clicks: 1, leads: 1, sales: 1, revenue: { usd: 100 }, visitors: 1 };
    const b = { clicks: 2, leads: 0, sales: 1, revenue: { usd: 50, eur: 10 }, visitors: 2 };
    expect(sumFigures([a, b])).toEqual({ clicks: 3, leads: 1, sales: 2, revenue: { usd: 150, eur: 10 }, visitors: 3 });
    expect(sumFigures([a, { ...b, visitors: undefined }]).visitors).toBeUndefined();
    expect(sumFigures([])).toEqual({ clicks: 0, leads: 0, sales: 0, revenue: {} });
  });
});

describe('the CSV report', () => {
  it('guards text that a spreadsheet would run, and leaves plain decimals as numbers', () => {
    expect(['=1+1', '+x', '@SUM(A1)', '-x', '-10.00', '49.00', 7, 'a,b', 'say "hi"'].map(csvField)).toEqual([
      "'=1+1",
      "'+x",
      "'@SUM(A1)",
      "'-x",
      '-10.00',
      '49.00',
      '7',
      '"a,b"',
      '"say ""hi"""',
    ]);
  });

  it('writes money in major units with the currency’s own decimals', () => {
    expect(majorUnits(4900, 'usd')).toBe('49.00');
    expect(majorUnits(500, 'jpy')).toBe('500');
    expect(majorUnits(1234, 'kwd')).toBe('1.234');
    expect(majorUnits(-1000, 'eur')).toBe('-10.00');
  });

  it('names the view in its first records, then one record per group, all as wide as the heading', () => {
    const s = strings.en;
    // Rows of an API without visitors (the tables then leave the column out).
    const rows: Group[] = [
      {
        key: 'GB',
        clicks: 2,
        leads: 1,
        sales: 1,
        saleAmount: 4900,
        revenue: { usd: 4900 },
        refunded: {},
        previous: { clicks: 2, leads: 0, sales: 0, revenue: {} },
      },
      {
        key: 'DE',
        clicks: 3,
        leads: 0,
        sales: 0,
        saleAmount: 0,
        revenue: {},
        refunded: {},
        previous: { clicks: 0, leads: 0, sales: 0, revenue: { eur: 1000 } },
      },
    ] as unknown as Group[];
    const header = { range: 'Last 7 days: Nov 19 – Nov 25', timeZone: 'UTC', filters: ['Device: Mobile'], comparison: 'Previous period' };
    const records = parse(
      toCsv(reportRecords([{ name: 'Country', groupBy: 'country', rows, label: (g) => g.key }], header, true, s, '2026-11-25T10:00:00Z')),
    ) as string[][];
    expect(records.slice(0, 6).map((r) => r.slice(0, 2))).toEqual([
      ['Analytics report', ''],
      ['Date range', 'Last 7 days: Nov 19 – Nov 25'],
      ['Time zone', 'UTC'],
      ['Active filters', 'Device: Mobile'],
      ['Compare with', 'Previous period'],
      ['Generated', '2026-11-25T10:00:00Z'],
    ]);
    expect(records[6]).toEqual([
      'Breakdown',
      'groupBy',
      'Key',
      'Label',
      'Clicks',
      'Leads',
      'Sales',
      'Revenue (EUR)',
      'Revenue (USD)',
      'Earlier: Clicks',
      'Earlier: Leads',
      'Earlier: Sales',
      'Earlier: Revenue (EUR)',
      'Earlier: Revenue (USD)',
    ]);
    expect(records.slice(7)).toEqual([
      ['Country', 'country', 'GB', 'GB', '2', '1', '1', '0.00', '49.00', '2', '0', '0', '0.00', '0.00'],
      ['Country', 'country', 'DE', 'DE', '3', '0', '0', '0.00', '0.00', '0', '0', '0', '10.00', '0.00'],
    ]);
    expect(new Set(records.map((r) => r.length)).size).toBe(1);
    // Visitors beside clicks, in both periods, once every group counts them.
    const counted = rows.map((g) => ({ ...g, visitors: 1, previous: { ...g.previous!, visitors: 2 } }));
    const withVisitors = parse(
      toCsv(reportRecords([{ name: 'Country', groupBy: 'country', rows: counted, label: (g) => g.key }], header, true, s, '')),
    ) as string[][];
    expect(withVisitors[6]!.slice(4, 6)).toEqual(['Clicks', 'Visitors']);
    expect(withVisitors[6]!.slice(10, 12)).toEqual(['Earlier: Clicks', 'Earlier: Visitors']);
    expect(withVisitors[7]!.slice(4, 6)).toEqual(['2', '1']);
    expect(withVisitors[7]!.slice(10, 12)).toEqual(['2', '2']);
  });

  it('reads back as written (csv-parse), any text and numbers', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.oneof(fc.string(), fc.integer()), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }), (records) => {
        const back = parse(toCsv(records)) as string[][];
        const width = Math.max(...records.map((r) => r.length));
        const unguard = (v: string | number) => (typeof v === 'number' ? String(v) : csvField(v).replace(/^"|"$/g, '').replaceAll('""', '"'));
        expect(back).toEqual(records.map((r) => [...r.map(unguard), ...Array<string>(width - r.length).fill('')]));
      }),
    );
  });
});
