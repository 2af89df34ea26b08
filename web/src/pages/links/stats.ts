/**
 * The Links list's performance columns (operations.md §14): the order asked of the API, the
 * range's query, a row's badges, and which currency a revenue sort uses. Pure functions, so
 * they are tested without a browser.
 */
import { browserZone, DEFAULT_PRESET, PRESETS, resolveRange, type Preset } from '../analytics/range.js';
import type { ByCurrency } from '../../ui/money.js';
import type { Link } from './rows.js';

/** What `withStats=true` adds to each link. */
export interface LinkStats {
  clicks: number;
  leads: number;
  sales: number;
  /** Net of refunds, minor units per lower-case currency code. */
  revenue: ByCurrency;
  refunded: ByCurrency;
}

/** A link of the list, with its figures when they were asked for. */
export type LinkRow = Link & { stats?: LinkStats };

export const ORDER_KEYS = ['clicks', 'leads', 'sales', 'revenue', 'createdAt'] as const;
export type OrderKey = (typeof ORDER_KEYS)[number];

/** The list's order: a column and its direction; a revenue order names its currency. */
export interface Order {
  by: OrderKey;
  sort: 'asc' | 'desc';
  currency?: string;
}

export const DEFAULT_ORDER: Order = { by: 'createdAt', sort: 'desc' };
export { DEFAULT_PRESET, PRESETS, type Preset };

/**
 * The next order when a column's heading is pressed: the same column turns round; another
 * column starts with its largest first (desc), as a person asks "which links do best".
 */
export function nextOrder(current: Order, by: OrderKey, currency?: string): Order {
  if (current.by === by) return { ...current, sort: current.sort === 'desc' ? 'asc' : 'desc' };
  return by === 'revenue' ? { by, sort: 'desc', currency: currency ?? 'usd' } : { by, sort: 'desc' };
}

/**
 * The currency a revenue order uses: that of the largest net figure among the rows shown
 * (the workspace's main currency, in practice), else usd. Amounts of different currencies are
 * compared as numbers only to pick one, never added.
 */
export function largestCurrency(rows: readonly LinkRow[]): string {
  let best: { code: string; minor: number } | undefined;
  for (const row of rows) {
    for (const [code, minor] of Object.entries(row.stats?.revenue ?? {})) {
      if (!best || Number(minor) > best.minor || (Number(minor) === best.minor && code < best.code)) best = { code, minor: Number(minor) };
    }
  }
  return best?.code ?? 'usd';
}

/** The query parameters of the stats: the range in the browser's zone and the order. */
export function statsQuery(preset: Preset, order: Order, zone = browserZone(), now = Date.now()): Record<string, string> {
  const range = resolveRange(preset, zone, now);
  return {
    withStats: 'true',
    timezone: zone,
    ...(range.startDate ? { startDate: range.startDate } : {}),
    ...(range.endDate ? { endDate: range.endDate } : {}),
    orderBy: order.by,
    ...(order.by === 'revenue' ? { currency: order.currency ?? 'usd' } : {}),
  };
}

export type Badge = 'expired' | 'expiring' | 'password' | 'device' | 'geo' | 'cloaked';
const WEEK_MS = 7 * 86_400_000;

/** A link's badges, in a fixed order: expired or expiring within 7 days, password, device or geo targeting, cloaked. */
export function badgesOf(link: Link, now = Date.now()): Badge[] {
  const out: Badge[] = [];
  if (link.expiresAt) {
    const at = Date.parse(String(link.expiresAt));
    if (at <= now) out.push('expired');
    else if (at - now <= WEEK_MS) out.push('expiring');
  }
  if (link.password) out.push('password');
  if (link.ios || link.android) out.push('device');
  if (link.geo && Object.keys(link.geo).length > 0) out.push('geo');
  if (link.cloaked) out.push('cloaked');
  return out;
}
