import type { Redis } from 'ioredis';
import { decide, WINDOW_MS, windowMember, type RateDecision, type RateLimiter } from '../http/rate-limit.js';
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
 * site's windows and, when both allow it, the visitor's mark claimed — the same windows as the
 * rate limiter's and the same marks as visitor-marks.ts, in one round trip to Redis instead of
 * three (every visitor of every site comes through here, as through a redirect).
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

// The rate limiter's sliding window (rate-limit.ts) for each window key, then `SET NX` of the mark
// when every window allowed the request. KEYS: the windows' keys, then the mark's ('' for none).
// ARGV: now, window length, the member, the mark's value and lifetime, then each window's limit.
const ADMIT_LUA = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local windows = #KEYS - 1
local out = {}
local allowedAll = true
for i = 1, windows do
  local key = KEYS[i]
  local limit = tonumber(ARGV[5 + i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  local allowed = 0
  if count < limit then
    redis.call('ZADD', key, now, ARGV[3])
    count = count + 1
    allowed = 1
  else
    allowedAll = false
  end
  redis.call('PEXPIRE', key, window)
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  out[#out + 1] = allowed
  out[#out + 1] = count
  out[#out + 1] = oldest[2] or tostring(now)
end
local mark = KEYS[windows + 1]
if mark ~= '' and allowedAll then
  if redis.call('SET', mark, ARGV[4], 'PX', ARGV[5], 'NX') then
    out[#out + 1] = ARGV[4]
  else
    out[#out + 1] = redis.call('GET', mark) or ARGV[4]
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
    const keys = [...windows.map((w) => `lt:rl:${w.key}`), mark ? `lt:vm:${mark.key}` : ''];
    const member = windowMember(nowMs);
    let out: (number | string)[];
    try {
      const admit = (this.redis as unknown as Record<string, AdmitCommand>).clickGateAdmit!;
      out = await admit.call(this.redis, keys.length, ...keys, nowMs, WINDOW_MS, member, mark?.value ?? '', mark?.ttlMs ?? 0, ...windows.map((w) => w.limit));
    } catch {
      // The limiter and the marks log the outage and keep counting in process.
      return this.separate.admit(windows, mark, nowMs);
    }
    const decisions = windows.map((w, i) => decide(out[3 * i] === 1, w.limit, Number(out[3 * i + 1]), Number(out[3 * i + 2]), nowMs));
    const claimed = out[3 * windows.length];
    return { windows: decisions, ...(claimed !== undefined && { mark: String(claimed) }) };
  }
}
