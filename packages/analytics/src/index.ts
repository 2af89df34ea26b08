/**
 * @linktrail/analytics: adds Linktrail's /attribution.js to a page from code (single-page apps),
 * with the same options as the script's data attributes. No dependency; browsers only.
 */

/** The options of /attribution.js, as its `data-*` attributes name them. */
export interface AnalyticsOptions {
  /** The workspace's publishable key (`lt_pk_…`, Settings → Tracking). Without it the script only keeps the click id from the URL. */
  publishableKey?: string;
  /** Where the Linktrail API is (its BASE_URL), e.g. `https://links.example.com`. The script is loaded from there too unless `scriptSrc` says otherwise. */
  apiHost: string;
  /** Where to load the script from; default `${apiHost}/attribution.js`. */
  scriptSrc?: string;
  /** The names of the query parameter carrying a partner's referral key; default `['via']`. */
  queryParams?: string[];
  /** `last-click` (default): a new click id replaces the kept one; `first-click`: the first one stays. */
  attribution?: 'last-click' | 'first-click';
  /** Days the click id cookie lasts; default 90. */
  attributionDays?: number;
  /** A domain for the cookie, to share it with subdomains (`shop.example`). */
  cookieDomain?: string;
  /** Links and forms leading to these domains (and their subdomains) carry the click id. */
  outboundDomains?: string[];
}

/** What the script puts on `window.linktrail`. */
export interface Linktrail {
  /** The click id kept for this visitor, or null. */
  getClickId(): string | null;
  /** Settles once a `?via=` landing's click is recorded (its answer), or at once with null. */
  ready: Promise<{ clickId: string; partner?: { id: string; name: string; image: string | null }; coupon?: { code: string } } | null>;
  /** POST /api/track/lead/client; the click id defaults to the kept one. */
  trackLead(body: LeadBody): Promise<unknown>;
  /** POST /api/track/sale/client (when the workspace allows sales from browsers). */
  trackSale(body: SaleBody): Promise<unknown>;
}

export interface LeadBody {
  eventName: string;
  customerExternalId: string;
  customerName: string;
  customerEmail?: string | null;
  customerAvatar?: string | null;
  clickId?: string;
  metadata?: Record<string, unknown> | null;
}

export interface SaleBody {
  customerExternalId: string;
  customerName: string;
  amount: number;
  currency?: string;
  eventName?: string;
  invoiceId?: string;
  customerEmail?: string | null;
  customerAvatar?: string | null;
  clickId?: string;
  metadata?: Record<string, unknown> | null;
}

/** The data attributes a set of options stands for, in the script's names. */
export function attributes(o: AnalyticsOptions): Record<string, string> {
  const out: Record<string, string> = { 'data-api-host': o.apiHost.replace(/\/+$/, '') };
  if (o.publishableKey) out['data-publishable-key'] = o.publishableKey;
  if (o.queryParams?.length) out['data-query-params'] = o.queryParams.join(',');
  if (o.attribution) out['data-attribution'] = o.attribution;
  if (o.attributionDays !== undefined) out['data-attribution-days'] = String(o.attributionDays);
  if (o.cookieDomain) out['data-cookie-domain'] = o.cookieDomain;
  if (o.outboundDomains?.length) out['data-outbound-domains'] = o.outboundDomains.join(',');
  return out;
}

const MARK = 'data-linktrail';

/**
 * Adds the script to the page once (a second call returns the first script). Call it as the app
 * starts; the script reads the landing URL's click id and `?via=` when it runs.
 */
export function inject(options: AnalyticsOptions): HTMLScriptElement | undefined {
  if (typeof document === 'undefined') return undefined;
  const existing = document.querySelector<HTMLScriptElement>(`script[${MARK}]`);
  if (existing) return existing;
  const script = document.createElement('script');
  script.src = options.scriptSrc ?? `${options.apiHost.replace(/\/+$/, '')}/attribution.js`;
  script.defer = true;
  script.setAttribute(MARK, '');
  for (const [name, value] of Object.entries(attributes(options))) script.setAttribute(name, value);
  document.head.appendChild(script);
  return script;
}

/** The script's `window.linktrail`, once it has run (undefined before, or outside a browser). */
export function linktrail(): Linktrail | undefined {
  return typeof window === 'undefined' ? undefined : (window as unknown as { linktrail?: Linktrail }).linktrail;
}
