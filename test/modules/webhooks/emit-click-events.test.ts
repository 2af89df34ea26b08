/**
 * The pure pieces of link.clicked (src/modules/clicks/click-events.ts): which clicks of a batch
 * become events and what they say, and when the subscribed workspaces are read again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clickEvents, ClickSubscriptions } from '../../../src/modules/clicks/click-events.js';
import { enrichClick, type RawClick } from '../../../src/modules/clicks/record.js';
import { DESKTOP, IPHONE } from '../../helpers/visitors.js';

const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const WORKSPACES = ['0190a6b0-0000-7000-8000-00000000000a', '0190a6b0-0000-7000-8000-00000000000b', '0190a6b0-0000-7000-8000-00000000000c'];
const lookup = (ip: string) => (ip === '81.2.69.160' ? 'GB' : undefined);

const rawClick: fc.Arbitrary<RawClick> = fc.record({
  id: fc.uuid({ version: 7 }),
  workspaceId: fc.constantFrom(...WORKSPACES),
  linkId: fc.constantFrom('0190a6b0-0000-7000-8000-0000000000f1', '0190a6b0-0000-7000-8000-0000000000f2'),
  partnerId: fc.constantFrom(null, '0190a6b0-0000-7000-8000-0000000000e1'),
  at: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
  ip: fc.constantFrom('81.2.69.160', '127.0.0.1'),
  userAgent: fc.constantFrom(DESKTOP, IPHONE, GOOGLEBOT, ''),
  referer: fc.option(fc.constantFrom('https://news.example/a', 'not a url'), { nil: undefined }),
  country: fc.option(fc.constantFrom('DE', 'US'), { nil: undefined }),
  utm: fc.option(fc.record({ source: fc.string({ maxLength: 5 }) }), { nil: undefined }),
  trigger: fc.option(fc.constant('qr' as const), { nil: undefined }),
});

describe('the link.clicked events of a batch', () => {
  it('are exactly its human clicks of subscribed workspaces: id the click id, its workspace and time (the body is composed from the stored click)', () => {
    fc.assert(
      fc.property(fc.array(rawClick, { maxLength: 40 }), fc.subarray(WORKSPACES), (batch, subscribed) => {
        const events = clickEvents(batch, new Set(subscribed), lookup);
        const expected = batch.filter((c) => subscribed.includes(c.workspaceId) && !enrichClick(c, lookup).bot);
        expect(events).toEqual(
          expected.map((c) => {
            const { id, workspaceId, createdAt } = enrichClick(c, lookup);
            return { id, workspaceId, createdAt };
          }),
        );
      }),
    );
  });

  it('are none, without looking at a click, while nobody is subscribed', () => {
    const untouchable = new Proxy({} as RawClick, {
      get: () => {
        throw new Error('a click was read');
      },
    });
    expect(clickEvents([untouchable, untouchable], new Set(), lookup)).toEqual([]);
  });
});

describe('the subscribed workspaces of an instance', () => {
  it('are read on first use, kept for maxAge, read again after it; concurrent uses share one read', async () => {
    let now = 1_000;
    let reads = 0;
    const answers = [new Set(['a']), new Set(['a', 'b'])];
    const subs = new ClickSubscriptions(
      async () => answers[Math.min(reads++, 1)]!,
      5000,
      () => now,
    );
    const [first, second] = await Promise.all([subs.current(), subs.current()]);
    expect(reads).toBe(1);
    expect(first).toEqual(new Set(['a']));
    expect(second).toBe(first);
    now += 4_999;
    expect(await subs.current()).toEqual(new Set(['a']));
    expect(reads).toBe(1);
    now += 1;
    expect(await subs.current()).toEqual(new Set(['a', 'b']));
    expect(reads).toBe(2);
  });

  it('a failed read fails the batch that asked, and the next batch reads again', async () => {
    let fail = true;
    const subs = new ClickSubscriptions(async () => {
      if (fail) throw new Error('database away');
      return new Set(['a']);
    });
    await expect(subs.current()).rejects.toThrow('database away');
    fail = false;
    expect(await subs.current()).toEqual(new Set(['a']));
  });
});
