/** The partner program's tools (operations.md §18): commissions listed, and what is payable now per currency. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { callApi, toolResult, type Connection } from './api.js';
import { paging } from './shared-schemas.js';

const STATUSES = ['pending', 'payable', 'held', 'reversed', 'paid'] as const;
/** The most GET /api/commissions answers at once: the fewest requests for a sum over every payable commission. */
const PAGE = 5000;

function listCommissions(server: McpServer, conn: Connection): void {
  server.registerTool(
    'list_commissions',
    {
      title: 'List partner commissions',
      description:
        "List the partner program's commissions: what partners earned for clicks, leads, sales, or by hand (custom). Result: a JSON array of { id, partnerId, type (click, lead, sale, custom), status, earnings (integer, the currency's minor unit; negative takes money back), currency, saleAmount, holdReasons, reversedReason, adjustment, payoutId, description, createdAt, payableAt }, newest first unless sort is asc. Status: pending until payableAt, then payable; held for fraud review; reversed; paid. Needs the programsRead scope.",
      inputSchema: {
        partnerId: z.string().uuid().optional().describe("Only this partner's commissions"),
        status: z.enum(STATUSES).optional().describe('Only commissions in this status'),
        currency: z
          .string()
          .regex(/^[a-z]{3}$/)
          .optional()
          .describe('Only commissions in this currency: lowercase ISO 4217 code, e.g. usd'),
        ...paging,
      },
      annotations: { readOnlyHint: true },
    },
    (args) => toolResult(async () => [(await callApi(conn, { method: 'GET', path: '/api/commissions', query: args })).json]),
  );
}

/** What a payable commission contributes to the totals. */
export interface PayableCommission {
  partnerId: string;
  currency: string;
  earnings: number;
  payoutId: string | null;
}

export interface PayableTotal {
  currency: string;
  /** Exact sum of earnings in the currency's minor unit. */
  total: bigint;
  partners: number;
  commissions: number;
}

/**
 * Sums per currency, as BigInt (a sum may pass 2^53), never across currencies. Commissions
 * already claimed by a pending payout (payoutId set) are left out: they are no longer payable.
 */
export function payableTotals(commissions: Iterable<PayableCommission>): PayableTotal[] {
  const byCurrency = new Map<string, { total: bigint; partners: Set<string>; commissions: number }>();
  for (const c of commissions) {
    if (c.payoutId !== null) continue;
    const sum = byCurrency.get(c.currency) ?? { total: 0n, partners: new Set<string>(), commissions: 0 };
    sum.total += BigInt(c.earnings);
    sum.partners.add(c.partnerId);
    sum.commissions += 1;
    byCurrency.set(c.currency, sum);
  }
  return [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, s]) => ({ currency, total: s.total, partners: s.partners.size, commissions: s.commissions }));
}

/** JSON of the totals, each `total` written as its exact integer digits. */
export function payableTotalsJson(totals: PayableTotal[]): string {
  return `[${totals.map((t) => `{"currency":${JSON.stringify(t.currency)},"total":${t.total.toString()},"partners":${t.partners},"commissions":${t.commissions}}`).join(',')}]`;
}

/** Every payable commission, oldest first (new ones land after the pages read), a page of 5,000 at a time. */
async function readPayable(conn: Connection): Promise<PayableCommission[]> {
  const all: PayableCommission[] = [];
  for (let skip = 0; ; skip += PAGE) {
    const answer = await callApi(conn, { method: 'GET', path: '/api/commissions', query: { status: 'payable', sort: 'asc', skip, take: PAGE } });
    // One commission's earnings is at most 10^12: JSON.parse reads each exactly.
    const page = JSON.parse(answer.json) as PayableCommission[];
    all.push(...page);
    if (page.length < PAGE) return all;
  }
}

function payableTotalsTool(server: McpServer, conn: Connection): void {
  server.registerTool(
    'payable_totals',
    {
      title: 'What is payable to partners',
      description:
        "What the partner program owes now, per currency: the commissions whose status is payable and that no pending payout holds yet, summed exactly per currency (amounts in different currencies are never added together). Result: a line saying how many commissions were read, then a JSON array of { currency, total (integer in the currency's minor unit, written exactly even past 2^53), partners (how many partners have payable commissions in it), commissions }. A payout pays a partner only if their total reaches the program's minimum and they have payout details. Reads GET /api/commissions?status=payable page by page: needs the programsRead scope.",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    () =>
      toolResult(async () => {
        const commissions = await readPayable(conn);
        const totals = payableTotals(commissions);
        const held = commissions.length - totals.reduce((n, t) => n + t.commissions, 0);
        const summary = `${commissions.length} payable commission(s) read; ${held} already in a pending payout, left out; ${totals.length} currenc${totals.length === 1 ? 'y' : 'ies'}.`;
        return [summary, payableTotalsJson(totals)];
      }),
  );
}

export function registerProgramTools(server: McpServer, conn: Connection): void {
  listCommissions(server, conn);
  payableTotalsTool(server, conn);
}
