import type { Redis } from 'ioredis';
import { WINDOW_MS, type RateDecision, type RateLimiter } from '../http/rate-limit.js';
import type { VisitorMarks } from './visitor-marks.js';

/** A window to count a request in: the rate limiter's key and limit. */
export interface GateWindow {
  key: string;
  limit: number;
}

/** A visitor mark to claim (visitor-marks.ts). */
export interface GateMark {
  key: string;
  value: string;
  ttlMs: number;
}

export interface GateAnswer {
  /** One decision per window, in the order given. */
  windows: RateDecision[];
  /** The mark's value (the one already there, or the one given) when every window allowed the request; else undefined. */
  mark?: string;
}

/**
 * A browser click's admission (operations.md §19): its request counted in the visitor's and the
 * site's windows and, when both allow it, the visitor's mark claimed (the same marks as
 * visitor-marks.ts). With Redis, one round trip and two counters per window (windowWeight);
 * in process, and while Redis is away, the rate limiter's exact windows.
 */
export interface ClickGate {
  admit(windows: readonly GateWindow[], mark: GateMark | undefined, nowMs: number): Promise<GateAnswer>;
}

/** The limiter's windows, then the mark: in process these answer at once; also Redis's fallback. */
export class SeparateClickGate implements ClickGate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly marks: VisitorMarks,
  ) {}

  async admit(windows: readonly GateWindow[], mark: GateMark | undefined, nowMs: number): Promise<GateAnswer> {
    const decisions = await Promise.all(windows.map((w) => this.limiter.hit(w.key, w.limit, nowMs)));
    if (!mark || decisions.some((d) => !d.allowed)) return { windows: decisions };
    return { windows: decisions, mark: await this.marks.claim(mark.key, mark.value, mark.ttlMs, nowMs) };
  }
}

/**
 * Redis's windows for the browser-tracking routes: two fixed minutes per window, this one's count
 * and the last one's, and the rolling minute estimated from them — the last minute's count
 * weighed by the part of it still inside the 60 s before now (rounded up: a burst is never
 * under-counted by a fraction), plus this minute's. Every visitor of every site comes through
 * here, as through a redirect: a sorted set with a member per request cost Redis 21–22 µs of CPU
 * a click against 13 µs for the counters, and its memory grew with the pool (ten times the plan's
 * figure a minute). The estimate is exact for a burst inside one minute; traffic bunched at the
 * end of one minute and of the next can pass up to twice the limit in a rolling minute, at worst.
 * The API's own window (rate-limit.ts) stays an exact log.
 */
export function windowWeight(nowMs: number): number {
  return 1 - (nowMs % WINDOW_MS) / WINDOW_MS;
}

/** The rolling minute's estimate from the last minute's count and this one's (see windowWeight). */
export function windowEstimate(previous: number, current: number, weight: number): number {
  return Math.ceil(previous * weight) + current;
}

/** The estimate at `atMs` with no request after `nowMs`: this minute's count becomes the last one's in the next, then nothing. */
function estimateLater(previous: number, current: number, nowMs: number, atMs: number): number {
  const minutes = Math.floor(atMs / WINDOW_MS) - Math.floor(nowMs / WINDOW_MS);
  if (minutes === 0) return windowEstimate(previous, current, windowWeight(atMs));
  return minutes === 1 ? windowEstimate(current, 0, windowWeight(atMs)) : 0;
}

/** The longest a refused request is told to wait: two minutes on, nothing of now is counted (a limit under 1, which configuration refuses, would never free). */
const LONGEST_WAIT_S = (2 * WINDOW_MS) / 1000;

/**
 * A counted window's decision: X-RateLimit-Remaining from the estimate, X-RateLimit-Reset the end
 * of this minute (from then on its count fades), and when refused the whole seconds until the
 * estimate, with no more requests, falls under the limit.
 */
export function countedDecision(allowed: boolean, limit: number, previous: number, current: number, nowMs: number): RateDecision {
  const end = nowMs - (nowMs % WINDOW_MS) + WINDOW_MS;
  const remaining = Math.max(0, limit - windowEstimate(previous, current, windowWeight(nowMs)));
  if (allowed) return { allowed, limit, remaining, resetAt: Math.ceil(end / 1000), retryAfter: 0 };
  // The first whole second at which it is under: the estimate only falls with time.
  let wait = 1;
  while (wait < LONGEST_WAIT_S && estimateLater(previous, current, nowMs, nowMs + wait * 1000) >= limit) wait++;
  return { allowed, limit, remaining, resetAt: Math.ceil(end / 1000), retryAfter: wait };
}

// Each window: KEYS this minute's counter, then the last minute's; a request is counted in this
// minute's when the estimate (windowEstimate) is under the window's limit. Then `SET NX` of the
// mark when every window allowed the request. KEYS: the windows' pairs, then the mark's ('' for
// none). ARGV: the last minute's weight, the counters' lifetime, the mark's value and lifetime,
// then each window's limit. Answers, per window: allowed, this minute's count, the last one's.
const ADMIT_LUA = `
local weight = tonumber(ARGV[1])
local windows = (#KEYS - 1) / 2
local out = {}
local allowedAll = true
for i = 1, windows do
  local current = tonumber(redis.call('GET', KEYS[2 * i - 1]) or '0')
  local previous = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
  local allowed = 0
  if math.ceil(previous * weight) + current < tonumber(ARGV[4 + i]) then
    current = redis.call('INCR', KEYS[2 * i - 1])
    if current == 1 then redis.call('PEXPIRE', KEYS[2 * i - 1], ARGV[2]) end
    allowed = 1
  else
    allowedAll = false
  end
  out[#out + 1] = allowed
  out[#out + 1] = current
  out[#out + 1] = previous
end
local mark = KEYS[#KEYS]
if mark ~= '' and allowedAll then
  if redis.call('SET', mark, ARGV[3], 'PX', ARGV[4], 'NX') then
    out[#out + 1] = ARGV[3]
  else
    out[#out + 1] = redis.call('GET', mark) or ARGV[3]
  end
end
return out
`;

type AdmitCommand = (...args: (string | number)[]) => Promise<(number | string)[]>;

/** In Redis, one script; Redis away: the limiter's and the marks' own fallbacks (in process). */
export class RedisClickGate implements ClickGate {
  private readonly separate: SeparateClickGate;

  constructor(
    private readonly redis: Redis,
    limiter: RateLimiter,
    marks: VisitorMarks,
  ) {
    redis.defineCommand('clickGateAdmit', { lua: ADMIT_LUA });
    this.separate = new SeparateClickGate(limiter, marks);
  }

  async admit(windows: readonly GateWindow[], mark: GateMark | undefined, nowMs: number): Promise<GateAnswer> {
    const minute = Math.floor(nowMs / WINDOW_MS);
    const keys = windows.flatMap((w) => [`lt:cw:${w.key}:${minute}`, `lt:cw:${w.key}:${minute - 1}`]);
    keys.push(mark ? `lt:vm:${mark.key}` : '');
    let out: (number | string)[];
    try {
      const admit = (this.redis as unknown as Record<string, AdmitCommand>).clickGateAdmit!;
      // A minute's counter is read as the last one during the next: it lives two.
      out = await admit.call(
        this.redis,
        keys.length,
        ...keys,
        windowWeight(nowMs),
        2 * WINDOW_MS,
        mark?.value ?? '',
        mark?.ttlMs ?? 0,
        ...windows.map((w) => w.limit),
      );
    } catch {
      // The limiter and the marks log the outage and keep counting in process.
      return this.separate.admit(windows, mark, nowMs);
    }
    const decisions = windows.map((w, i) => countedDecision(out[3 * i] === 1, w.limit, Number(out[3 * i + 2]), Number(out[3 * i + 1]), nowMs));
    const claimed = out[3 * windows.length];
    return { windows: decisions, ...(claimed !== undefined && { mark: String(claimed) }) };
  }
}
