import type { IncomingHttpHeaders } from 'node:http';
import type { Ctx } from '../../core/context.js';
import { AppError, invalid } from '../../core/errors.js';
import { sha256 } from '../../core/secret.js';
import { newId } from '../../db/ids.js';
import type { VisitorMarks } from '../../infra/visitor-marks.js';
import type { ClickRecorder, RawClick, Utm } from '../clicks/service.js';
import { findLinkForRedirect, isShortId } from '../links/service.js';
import { approvedPartnerByReferralKey } from '../partners/service.js';
import { countryFromHeader, isPrefetch, placeFromHeader } from '../redirect/service.js';
import type { Memo } from './memo.js';

/** A visitor back on the same link within this long gets the click id of their first visit, and no second click. */
export const SAME_VISITOR_MS = 3_600_000;

export interface ViaPartner {
  id: string;
  name: string;
  image: string | null;
  defaultLinkId: string | null;
  couponCode: string | null;
}

export interface ClickDeps {
  clicks: ClickRecorder;
  marks: VisitorMarks;
  countryHeader: string | undefined;
  regionHeader?: string;
  cityHeader?: string;
  /** Approved partners by workspace and referral key (lower case); null: none. */
  partners: Memo<ViaPartner | null>;
  /** Links by short id; null: none. */
  links: Memo<{ id: string; workspaceId: string; partnerId: string | null } | null>;
}

export interface ClickInput {
  via?: string;
  shortId?: string;
  url?: string;
  referrer?: string;
}

export interface TrackedClick {
  clickId: string;
  partner?: { id: string; name: string; image: string | null };
  coupon?: { code: string };
}

/** The visitor as the request shows them. */
export interface Visitor {
  ip: string;
  headers: IncomingHttpHeaders;
}

const UTM_KEYS = ['source', 'medium', 'campaign', 'term', 'content'] as const;

/** The utm_* parameters of the page's URL; undefined when it has none (or is no URL). */
function utmOf(url: string | undefined): Utm | undefined {
  if (!url || !url.includes('utm_')) return undefined;
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return undefined;
  }
  const utm: Utm = {};
  for (const k of UTM_KEYS) {
    const v = params.get(`utm_${k}`);
    if (v) utm[k] = v;
  }
  return Object.keys(utm).length ? utm : undefined;
}

/** The link (and partner) a click names. */
export interface ClickTarget {
  linkId: string;
  partnerId: string | null;
  partner: ViaPartner | undefined;
}

const viaKey = (ctx: Ctx, input: ClickInput) => `${ctx.workspace.id}:${input.via!.toLowerCase()}`;

/** The link (and partner) a click names: a partner's default link by `via`, else a link of the workspace by `shortId`. */
async function targetOf(ctx: Ctx, deps: ClickDeps, input: ClickInput): Promise<ClickTarget> {
  const now = ctx.now.getTime();
  if (input.via !== undefined) {
    const via = input.via.toLowerCase();
    const partner = await deps.partners.get(viaKey(ctx, input), now, async () => (await approvedPartnerByReferralKey({ ctx, input: via })) ?? null);
    return viaTarget(partner);
  }
  if (input.shortId !== undefined) {
    const shortId = input.shortId;
    const link = isShortId(shortId) ? await deps.links.get(shortId, now, async () => (await findLinkForRedirect(ctx.db, shortId)) ?? null) : null;
    return linkTarget(ctx, link);
  }
  throw invalid('via', 'required');
}

function viaTarget(partner: ViaPartner | null): ClickTarget {
  // Unknown, pending, banned, or not given a default link yet: all alike.
  if (!partner?.defaultLinkId) throw new AppError('unknown_via');
  return { linkId: partner.defaultLinkId, partnerId: partner.id, partner };
}

function linkTarget(ctx: Ctx, link: { id: string; workspaceId: string; partnerId: string | null } | null): ClickTarget {
  if (!link || link.workspaceId !== ctx.workspace.id) throw new AppError('unknown_via');
  return { linkId: link.id, partnerId: link.partnerId, partner: undefined };
}

/**
 * targetOf from the caches alone: undefined when answering would need the database (the caller
 * then takes recordViaClick's way). Throws what targetOf would for what the caches know.
 */
export function cachedTargetOf(ctx: Ctx, deps: ClickDeps, input: ClickInput): ClickTarget | undefined {
  const now = ctx.now.getTime();
  if (input.via !== undefined) {
    const partner = deps.partners.peek(viaKey(ctx, input), now);
    return partner === undefined ? undefined : viaTarget(partner);
  }
  if (input.shortId !== undefined) {
    if (!isShortId(input.shortId)) throw new AppError('unknown_via');
    const link = deps.links.peek(input.shortId, now);
    return link === undefined ? undefined : linkTarget(ctx, link);
  }
  throw invalid('via', 'required');
}

/** The visitor's mark on the target's link (an hour): the key, and the click id a first visit gets. */
export function visitorMarkOf(ctx: Ctx, target: ClickTarget, visitor: Visitor): { key: string; value: string; ttlMs: number } {
  const seen = sha256(`${visitor.ip}\n${visitor.headers['user-agent'] ?? ''}`)
    .toString('base64url')
    .slice(0, 22);
  return { key: `${ctx.workspace.id}:${target.linkId}:${seen}`, value: newId(), ttlMs: SAME_VISITOR_MS };
}

/**
 * POST /api/track/click (operations.md §19): a click on the partner's default link (`via`) or the
 * link (`shortId`), recorded through the click writer's batches as a redirect records one
 * (trigger `via`), with the visitor's fields from the request. The same visitor (address and
 * user agent) on the same link within the hour gets the same click id, and no second click.
 */
export async function recordViaClick({ ctx, deps, input, visitor }: { ctx: Ctx; deps: ClickDeps; input: ClickInput; visitor: Visitor }): Promise<TrackedClick> {
  const target = await targetOf(ctx, deps, input);
  const mark = visitorMarkOf(ctx, target, visitor);
  const clickId = await deps.marks.claim(mark.key, mark.value, mark.ttlMs, ctx.now.getTime());
  return recordClaimedClick({ ctx, deps, input, visitor, target, clickId, fresh: mark.value });
}

/** The click recorded when its mark was new (`clickId` is `fresh`), and the answer either way. */
export async function recordClaimedClick({
  ctx,
  deps,
  input,
  visitor,
  target,
  clickId,
  fresh,
}: {
  ctx: Ctx;
  deps: ClickDeps;
  input: ClickInput;
  visitor: Visitor;
  target: ClickTarget;
  clickId: string;
  fresh: string;
}): Promise<TrackedClick> {
  if (clickId === fresh && !isPrefetch(visitor.headers)) {
    const country = countryFromHeader(visitor.headers, deps.countryHeader);
    const click: RawClick = {
      id: clickId,
      workspaceId: ctx.workspace.id,
      linkId: target.linkId,
      partnerId: target.partnerId,
      at: ctx.now.getTime(),
      ip: visitor.ip,
      userAgent: visitor.headers['user-agent'] ?? '',
      referer: input.referrer || undefined,
      country,
      utm: utmOf(input.url),
      trigger: 'via',
      region: placeFromHeader(visitor.headers, deps.regionHeader, country),
      city: placeFromHeader(visitor.headers, deps.cityHeader, country),
    };
    // Waits only when the click queue is full (back-pressure), as the redirect's route does.
    await deps.clicks.enqueue(click);
  }
  const p = target.partner;
  return {
    clickId,
    ...(p && { partner: { id: p.id, name: p.name, image: p.image } }),
    ...(p?.couponCode && { coupon: { code: p.couponCode } }),
  };
}
