/**
 * Made-up but realistic clicks for the analytics scenario, as the redirect hands them to the
 * click writer (RawClick): User-Agents, referers, visitor IPs and links skewed the way real
 * traffic is. Seeded, so every run (and every N) draws the same kind of traffic.
 */
import { v7 } from 'uuid';
import type { RawClick, Utm } from '../src/modules/clicks/record.js';

/** mulberry32: small, fast and good enough to draw traffic from. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws an index 0..weights.length-1 with the given weights (binary search over the cumulative sums). */
export function weighted(weights: readonly number[]): (u: number) => number {
  const cumulative = new Float64Array(weights.length);
  let total = 0;
  weights.forEach((w, i) => (cumulative[i] = total += w));
  return (u) => {
    const target = u * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/** Rank r drawn with weight 1/(r+1)^s: a few items take most of the traffic. */
export const zipf = (n: number, s = 1.05) => weighted(Array.from({ length: n }, (_, r) => 1 / (r + 1) ** s));

const W10 = 'Windows NT 10.0; Win64; x64';
const MAC = 'Macintosh; Intel Mac OS X 10_15_7';
const CHROME = 'AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0';
const IOS = 'like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko)';

/** [User-Agent, weight, is a bot]: desktop ~50 %, mobile ~40 %, tablet ~7 %, bots 3 %. */
export const USER_AGENTS: readonly [string, number, boolean][] = [
  [`Mozilla/5.0 (${W10}) ${CHROME} Safari/537.36`, 16, false],
  [`Mozilla/5.0 (${W10}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Safari/537.36`, 6, false],
  [`Mozilla/5.0 (${MAC}) ${CHROME} Safari/537.36`, 7, false],
  [`Mozilla/5.0 (X11; Linux x86_64) ${CHROME} Safari/537.36`, 2, false],
  [`Mozilla/5.0 (${W10}) ${CHROME} Safari/537.36 Edg/124.0.2478.80`, 5, false],
  [`Mozilla/5.0 (${MAC}) ${CHROME} Safari/537.36 Edg/124.0.2478.80`, 0.5, false],
  [`Mozilla/5.0 (${W10}; rv:125.0) Gecko/20100101 Firefox/125.0`, 3, false],
  [`Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0`, 1, false],
  [`Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0`, 1, false],
  [`Mozilla/5.0 (${MAC}) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15`, 4, false],
  [`Mozilla/5.0 (${W10}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.0.0 Safari/537.36 OPR/109.0.0.0`, 1, false],
  [`Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) ${CHROME} Safari/537.36`, 1, false],
  [`Mozilla/5.0 (${W10}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 YaBrowser/24.4.0.0 Safari/537.36`, 0.5, false],
  [`Mozilla/5.0 (${W10}) ${CHROME} Safari/537.36 Vivaldi/6.7.3329.21`, 0.3, false],
  [`Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 ${IOS} Version/17.4.1 Mobile/15E148 Safari/604.1`, 10, false],
  [`Mozilla/5.0 (iPhone; CPU iPhone OS 16_7_8 ${IOS} Version/16.6 Mobile/15E148 Safari/604.1`, 3, false],
  [`Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 ${IOS} CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1`, 2, false],
  [`Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 ${IOS} FxiOS/125.0 Mobile/15E148 Safari/605.1.15`, 0.4, false],
  [
    `Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 ${IOS} Mobile/15E148 Instagram 329.0.3.29.120 (iPhone14,5; iOS 17_4_1; en_US; en; scale=3.00; 1170x2532; 594416185)`,
    2,
    false,
  ],
  [
    `Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 ${IOS} Mobile/15E148 [FBAN/FBIOS;FBAV/460.0.0.38.108;FBBV/588411464;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.4.1;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]`,
    1.5,
    false,
  ],
  [`Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36`, 3, false],
  [`Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36`, 4, false],
  [`Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36`, 4, false],
  [
    `Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-A536B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36`,
    2,
    false,
  ],
  [`Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0`, 0.5, false],
  [
    `Mozilla/5.0 (Linux; U; Android 13; en-us; 2201117TG Build/TKQ1.221114.001) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/112.0.5615.136 Mobile Safari/537.36 XiaoMi/MiuiBrowser/14.9.1-gn`,
    0.6,
    false,
  ],
  [`Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36 OPR/81.1.4292.78446`, 0.5, false],
  [
    `Mozilla/5.0 (Linux; Android 14; SM-G991B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/461.0.0.50.108;]`,
    1.5,
    false,
  ],
  [
    `Mozilla/5.0 (Linux; U; Android 11; en-US; RMX2185 Build/QP1A.190711.020) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/100.0.4896.58 UCBrowser/13.4.0.1306 Mobile Safari/537.36`,
    0.5,
    false,
  ],
  [`Mozilla/5.0 (iPad; CPU OS 17_4_1 ${IOS} Version/17.4.1 Mobile/15E148 Safari/604.1`, 4, false],
  [`Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Safari/537.36`, 1.5, false],
  [`Mozilla/5.0 (Linux; Android 9; KFTRWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/124.2.1 like Chrome/124.0.6367.82 Safari/537.36`, 0.7, false],
  [`Mozilla/5.0 (Linux; Android 12; Lenovo TB-X606F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36`, 0.6, false],
  [`Mozilla/5.0 (SMART-TV; Linux; Tizen 7.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/5.0 Chrome/94.0.4606.31 TV Safari/537.36`, 0.3, false],
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 0.8, true],
  ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 0.3, true],
  ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 0.5, true],
  ['Twitterbot/1.0', 0.4, true],
  ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 0.5, true],
  ['LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)', 0.2, true],
  ['curl/8.5.0', 0.2, true],
  ['python-requests/2.31.0', 0.1, true],
];

const REAL_HOSTS = [
  'www.google.com',
  'www.google.co.uk',
  'www.google.de',
  'www.google.com.sa',
  'www.bing.com',
  'duckduckgo.com',
  'search.yahoo.com',
  'yandex.ru',
  'www.baidu.com',
  'search.naver.com',
  't.co',
  'x.com',
  'www.facebook.com',
  'l.facebook.com',
  'm.facebook.com',
  'lm.facebook.com',
  'l.instagram.com',
  'www.instagram.com',
  'www.linkedin.com',
  'lnkd.in',
  'www.reddit.com',
  'old.reddit.com',
  'out.reddit.com',
  'news.ycombinator.com',
  'www.youtube.com',
  'm.youtube.com',
  'www.tiktok.com',
  'web.whatsapp.com',
  't.me',
  'web.telegram.org',
  'discord.com',
  'app.slack.com',
  'mail.google.com',
  'outlook.live.com',
  'teams.microsoft.com',
  'medium.com',
  'substack.com',
  'github.com',
  'stackoverflow.com',
  'www.producthunt.com',
  'www.pinterest.com',
  'www.quora.com',
  'en.wikipedia.org',
  'ar.wikipedia.org',
  'www.nytimes.com',
  'www.bbc.co.uk',
  'www.theguardian.com',
  'techcrunch.com',
  'www.theverge.com',
  'dev.to',
  'hashnode.com',
  'www.threads.net',
  'bsky.app',
  'mastodon.social',
  'flipboard.com',
  'getpocket.com',
  'feedly.com',
  'news.google.com',
  'www.aljazeera.net',
  'www.alarabiya.net',
];
const WORDS = ['daily', 'tech', 'green', 'urban', 'money', 'travel', 'food', 'code', 'pixel', 'north', 'open', 'smart', 'deal', 'home', 'style', 'maker'];
const KINDS = ['blog', 'news', 'review', 'guide', 'hub', 'digest', 'weekly', 'lab', 'post', 'times'];
const TLDS = ['com', 'net', 'io', 'co', 'org', 'de', 'fr', 'com.br', 'co.uk', 'ae'];
const SECTIONS = ['post', 'article', 'r', 'p', 'blog', 'news', 'story', 'watch', 'status', 'deals'];

/** About 200 referring hosts (real ones first, then made-up sites), each with up to 40 pages. */
export function refererHosts(random: () => number): string[] {
  const made = new Set<string>();
  while (made.size < 200 - REAL_HOSTS.length) {
    const pick = (xs: string[]) => xs[Math.floor(random() * xs.length)]!;
    made.add(`${random() < 0.3 ? 'www.' : ''}${pick(WORDS)}${pick(KINDS)}.${pick(TLDS)}`);
  }
  return [...REAL_HOSTS, ...made];
}

/**
 * 300 public /16 blocks drawn from the unicast space (no private, loopback, CGNAT, link-local,
 * multicast or reserved ranges), so the country database answers for many countries.
 */
export function ipBlocks(random: () => number): [number, number][] {
  const reserved = (a: number, b: number) =>
    a === 0 ||
    a === 10 ||
    a === 127 ||
    a >= 224 ||
    (a === 100 && b >= 64 && b < 128) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b < 32) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19));
  const blocks: [number, number][] = [];
  while (blocks.length < 300) {
    const a = 1 + Math.floor(random() * 223);
    const b = Math.floor(random() * 256);
    if (!reserved(a, b)) blocks.push([a, b]);
  }
  return blocks;
}

/** Countries set directly on some clicks, as a trusted edge header would. */
const EDGE_COUNTRIES = ['SA', 'AE', 'EG', 'MA', 'NG', 'KE', 'ZA', 'BR', 'MX', 'AR', 'CO', 'ID', 'PH', 'VN', 'TH', 'PK', 'BD', 'TR', 'PL', 'UA'];

const UTM_SOURCES = ['newsletter', 'twitter', 'facebook', 'google', 'linkedin', 'instagram', 'partner', 'podcast'];
const UTM_MEDIUMS = ['email', 'social', 'cpc', 'referral', 'affiliate'];
const UTM_CAMPAIGNS = [
  'spring-sale',
  'summer-launch',
  'black-friday',
  'webinar-q3',
  'retargeting',
  'brand',
  'onboarding',
  'holiday',
  'beta-invite',
  'ramadan',
  'back-to-school',
  'giveaway',
];
const UTM_TERMS = ['running shoes', 'trail shoes', 'discount', 'free shipping', 'gift', 'new'];
const UTM_CONTENTS = ['hero-banner', 'footer-link', 'cta-button', 'video', 'carousel', 'text-ad'];

export interface TrafficLink {
  id: string;
  partnerId: string | null;
}

export interface Traffic {
  /** `count` clicks, in time order, stamped between `from` and `to` (ms). */
  batch(count: number, from: number, to: number): RawClick[];
  /** Ids of some human clicks drawn so far (for leads and sales). */
  sampledClickIds: string[];
}

/**
 * A traffic source over `links`, the first links taking the most clicks (Zipf); about 35 % of
 * clicks come without a referer, 8 % carry an edge country, 75 % UTM values, 10 % came by QR code. About 600 of `total` clicks are
 * sampled for conversions.
 */
export function traffic(workspaceId: string, links: readonly TrafficLink[], total: number, seed = 15): Traffic {
  const random = prng(seed);
  const linkOf = zipf(links.length);
  const agentOf = weighted(USER_AGENTS.map(([, w]) => w));
  const hosts = refererHosts(random);
  const hostOf = zipf(hosts.length, 0.9);
  const blocks = ipBlocks(random);
  const blockOf = zipf(blocks.length, 0.7);
  const pick = (xs: string[]) => xs[Math.floor(random() * xs.length)]!;
  // A quarter of visitors arrive without UTM values; the rest carry a source and a medium, often more.
  const utm = (): Utm | undefined => {
    if (random() < 0.25) return undefined;
    const u: Utm = { source: pick(UTM_SOURCES), medium: pick(UTM_MEDIUMS) };
    if (random() < 0.8) u.campaign = pick(UTM_CAMPAIGNS);
    if (random() < 0.1) u.term = pick(UTM_TERMS);
    if (random() < 0.2) u.content = pick(UTM_CONTENTS);
    return u;
  };
  const sampledClickIds: string[] = [];
  const sampleRate = Math.min(1, 600 / total);
  const referer = (): string | undefined => {
    if (random() < 0.35) return undefined;
    const host = hosts[hostOf(random())]!;
    const page = Math.floor(random() * 40);
    return page < 10 ? `https://${host}/` : `https://${host}/${SECTIONS[page % SECTIONS.length]}/${(page * 7919) % 100_000}-item-${page}`;
  };
  return {
    sampledClickIds,
    batch(count, from, to) {
      const times = Array.from({ length: count }, () => from + random() * (to - from)).sort((a, b) => a - b);
      return times.map((t): RawClick => {
        const at = Math.floor(t);
        const link = links[linkOf(random())]!;
        const [userAgent, , bot] = USER_AGENTS[agentOf(random())]!;
        const [a, b] = blocks[blockOf(random())]!;
        const id = v7({ msecs: at });
        if (!bot && random() < sampleRate) sampledClickIds.push(id);
        return {
          id,
          workspaceId,
          linkId: link.id,
          partnerId: link.partnerId,
          at,
          ip: `${a}.${b}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`,
          userAgent,
          referer: referer(),
          country: random() < 0.08 ? pick(EDGE_COUNTRIES) : undefined,
          utm: utm(),
          // One visit in ten comes by the link's QR code.
          ...(random() < 0.1 ? { trigger: 'qr' as const } : {}),
        };
      });
    },
  };
}
