import type { IncomingHttpHeaders } from 'node:http';
import type { KeyObject } from 'node:crypto';
import { isbot } from 'isbot';
import { SharedStrings } from '../../core/shared-strings.js';
import { newId } from '../../db/ids.js';
import type { RawClick } from '../clicks/service.js';
import { QR_MARKER } from '../links/service.js';
import { locationWith, tracking } from './destination.js';
import type { PasswordGate } from './password-gate.js';
import { osOf, resolveDestination, type RedirectLink } from './resolve.js';
import type { CountryLookup } from '../../infra/country.js';
import { splitVisit } from './split.js';

// Slack, X, Facebook, LinkedIn, WhatsApp, Discord, Telegram and friends fetch links to unfurl them.
const PREVIEW_BOT =
  /slackbot|slack-imgproxy|twitterbot|facebookexternalhit|facebot|linkedinbot|whatsapp|discordbot|telegrambot|skypeuripreview|pinterest|redditbot|embedly|iframely|vkshare|mastodon|bluesky|cardyb|google-pagerenderer|applebot/i;

export interface VisitDeps {
  clickIdParam: string;
  countryHeader: string | undefined;
  /** Trusted edge headers of the visitor's region and city (REGION_HEADER, CITY_HEADER); unset: not read. */
  regionHeader?: string;
  cityHeader?: string;
  gate: PasswordGate;
  lookupCountry: CountryLookup;
  /** The key of A/B tests' visitor hash (split.ts), derived from SECRET. */
  splitKey: KeyObject;
}

export interface Visit {
  method: string;
  headers: IncomingHttpHeaders;
  /** The client address (X-Forwarded-For's first entry only with TRUST_PROXY). */
  ip: string;
  /** The short link's own query string (without `?`), passed on to the destination. */
  query?: string;
  /** The path the visitor used (short id, key or alias), and whether that URL is https: an A/B test's cookie is scoped to it. */
  path?: string;
  secure?: boolean;
}

/**
 * The visitor's query without the QR marker's pairs (`ltqr` or `ltqr=…`, as written); the same
 * string when it has none, so `!==` tells whether the visit came by the QR code.
 */
export function withoutQrMarker(query: string): string {
  if (!query.includes(QR_MARKER)) return query;
  return query
    .split('&')
    .filter((pair) => pair !== QR_MARKER && !pair.startsWith(MARKER_PAIR))
    .join('&');
}
const MARKER_PAIR = `${QR_MARKER}=`;

/** What a visit to a short link comes to; `click` is set when it forwards (to be recorded). */
export type Outcome =
  | { kind: 'password' }
  | { kind: 'expired'; to: string | null }
  | { kind: 'preview' }
  /** `cookie`: a Set-Cookie to send (the A/B test's variant, operations.md §20). */
  | { kind: 'forward'; to: string; cloaked: boolean; click: RawClick | undefined; cookie: string | undefined }
  /** The destination cannot be made a valid Location (data stored before URLs were normalised). */
  | { kind: 'unusable'; destination: string };

/**
 * Browser prefetches and prerenders (Chrome's `Sec-Purpose`, the older `Purpose`/`X-Purpose`,
 * Firefox's `X-Moz`) are answered like any visit but are not clicks: nobody followed the link.
 */
export function isPrefetch(headers: IncomingHttpHeaders): boolean {
  const purpose = headers['sec-purpose'] ?? headers.purpose ?? headers['x-purpose'] ?? headers['x-moz'];
  return purpose !== undefined && /prefetch|prerender|preview/i.test(String(purpose));
}

/** The trusted edge header's country, when configured, present and well-formed. */
export function countryFromHeader(headers: Record<string, string | string[] | undefined>, headerName: string | undefined): string | undefined {
  if (!headerName) return undefined;
  const v = headers[headerName];
  const code = (Array.isArray(v) ? v[0] : v)?.trim().toUpperCase();
  // XX (unknown) and T1 (Tor) are what edges send when they do not know.
  return code && /^[A-Z]{2}$/.test(code) && code !== 'XX' && code !== 'T1' ? code : undefined;
}

/**
 * A trusted edge header's place name as "<name>, <country code>" (country when known), when
 * configured and present. Edges send UTF-8, which Node reads as Latin-1: decoded back when valid.
 */
export function placeFromHeader(headers: IncomingHttpHeaders, headerName: string | undefined, country: string | undefined): string | undefined {
  if (!headerName) return undefined;
  const v = headers[headerName];
  let name = (Array.isArray(v) ? v[0] : v)?.trim();
  if (!name) return undefined;
  if (/[\x80-\xff]/.test(name)) {
    const utf8 = Buffer.from(name, 'latin1').toString('utf8');
    if (!utf8.includes('\ufffd')) name = utf8;
  }
  return country ? `${name}, ${country}` : name;
}

/** The client's address: the socket's, or with TRUST_PROXY the first X-Forwarded-For entry. */
export function clientIp(headers: IncomingHttpHeaders, socketAddress: string | undefined, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = headers['x-forwarded-for'];
    const first = (Array.isArray(xff) ? xff[0] : xff)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return socketAddress ?? '';
}

/** The User-Agents and Referers that clicks keep, one string per value (core/shared-strings.ts). */
const agents = new SharedStrings(4096, 512);
const referers = new SharedStrings(4096, 1024);

/**
 * One visit, decided: the resolution order of the spec (password, expiry, device, country,
 * default url, cloaking), preview bots, and the click to record. Shared by the full route and
 * the fast path, so both behave the same.
 */
export function visitLink(d: VisitDeps, link: RedirectLink, v: Visit, nowMs: number): Outcome {
  const ua = agents.get(v.headers['user-agent'] ?? '');
  const trusted = countryFromHeader(v.headers, d.countryHeader);
  const visitor = {
    // Only device-targeted links need the OS; for the rest it cannot change the decision.
    os: link.ios || link.android ? osOf(ua) : ('other' as const),
    // An IP lookup only when the link targets by country; otherwise the click writer does it.
    country: trusted ?? (link.geo ? d.lookupCountry(v.ip) : undefined),
    unlocked: link.passwordSealed ? d.gate.unlocked(link, v.headers.cookie) : true,
  };
  const decision = resolveDestination(link, visitor, nowMs);
  if (decision.kind === 'password') return { kind: 'password' };
  if (decision.kind === 'expired') return { kind: 'expired', to: decision.to };
  if ((link.title || link.description || link.image) && PREVIEW_BOT.test(ua)) return { kind: 'preview' };
  // HEAD requests (link checkers) and prefetches are answered like GET but are not clicks.
  const counted = v.method !== 'HEAD' && !isPrefetch(v.headers);
  // api.md's step 5 (the default url) of a running A/B test: a counted visit of a person gets a
  // variant (operations.md §20); until endsAt, whether or not the completion has run.
  const test = link.test;
  let destination = decision.to;
  let variant = -1;
  let cookie: string | undefined;
  if (test && decision.via === 'url' && nowMs < test.endsAt && counted && !isBotAgent(ua)) {
    const split = splitVisit(d.splitKey, test, {
      shortId: link.shortId,
      path: v.path ?? '/',
      secure: v.secure ?? true,
      cookie: v.headers.cookie,
      ip: v.ip,
      userAgent: ua,
    });
    variant = split.variant;
    cookie = split.cookie;
    destination = test.urls[variant]!;
  }
  const sent = v.query ?? '';
  const query = sent && withoutQrMarker(sent);
  // Most visits have no query (or only the marker): their split destination is cached.
  const parts = tracking(destination, link.utm, d.clickIdParam, query);
  if (parts === undefined) return { kind: 'unusable', destination };
  // The id's time is the real clock's, not the visit's `nowMs`: an injected clock (tests, imports)
  // must not move the process's id sequence, which stays increasing from its latest time.
  const clickId = newId();
  const to = locationWith(parts, clickId);
  const click: RawClick | undefined = !counted
    ? undefined
    : {
        id: clickId,
        workspaceId: link.workspaceId,
        linkId: link.id,
        partnerId: link.partnerId,
        at: nowMs,
        ip: v.ip,
        userAgent: ua,
        referer: referers.maybe(v.headers.referer),
        country: visitor.country,
        utm: parts.utm,
        trigger: query === sent ? undefined : 'qr',
        region: placeFromHeader(v.headers, d.regionHeader, visitor.country),
        city: placeFromHeader(v.headers, d.cityHeader, visitor.country),
        testId: variant === -1 ? undefined : test!.id,
        variant: variant === -1 ? undefined : variant,
      };
  return { kind: 'forward', to, cloaked: decision.cloaked, click, cookie };
}

// Bots are never split (they would count as the test's clicks): isbot's verdict per User-Agent,
// remembered, since real traffic repeats a few thousand of them (as the click writer's cache).
const BOTS_REMEMBERED = 10_000;
const botVerdicts = new Map<string, boolean>();
function isBotAgent(userAgent: string): boolean {
  let bot = botVerdicts.get(userAgent);
  if (bot === undefined) {
    if (botVerdicts.size >= BOTS_REMEMBERED) botVerdicts.clear();
    botVerdicts.set(userAgent, (bot = isbot(userAgent)));
  }
  return bot;
}
