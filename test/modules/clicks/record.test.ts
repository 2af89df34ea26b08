import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { CLICK_COPY_COLUMNS, clickCopyChunks, clickCopyText, copyField, enrichClick, isoTime, type RawClick } from '../../../src/modules/clicks/record.js';
import { ClickGroups } from '../../../src/modules/clicks/store.js';

const COLUMN_KEYS = [
  'id',
  'workspaceId',
  'linkId',
  'partnerId',
  'createdAt',
  'country',
  'device',
  'browser',
  'os',
  'referrer',
  'referrerUrl',
  'bot',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'utmTerm',
  'utmContent',
  'trigger',
  'region',
  'city',
  'visitorFlags',
  'testId',
  'variant',
];

/** Reads one line of COPY text back, the way PostgreSQL does. */
function parseCopyLine(line: string): (string | null)[] {
  return line
    .split('\t')
    .map((field) => (field === '\\N' ? null : field.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', '\\': '\\' })[c] ?? c)));
}

const AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  'Googlebot/2.1 (+http://www.google.com/bot.html)',
  'curl/8.5.0',
  '',
];

const rawClick = fc.record<RawClick>(
  {
    id: fc.uuid(),
    workspaceId: fc.uuid(),
    linkId: fc.uuid(),
    partnerId: fc.option(fc.uuid(), { nil: null }),
    at: fc.integer({ min: 0, max: 4_102_444_800_000 }),
    ip: fc.constantFrom('127.0.0.1', '8.8.8.8', '2001:4860:4860::8888', 'not-an-ip'),
    userAgent: fc.oneof(fc.constantFrom(...AGENTS), fc.string()),
    referer: fc.option(fc.oneof(fc.webUrl(), fc.string(), fc.constant('https://a.example/tab\there\\N\r\n')), { nil: undefined }),
    country: fc.option(fc.constantFrom('GB', 'SA', 'US'), { nil: undefined }),
    // UTM values come from visitors' query strings: any text, tabs, backslashes and NUL included.
    utm: fc.option(
      fc.record(
        { source: fc.string(), medium: fc.string({ unit: 'binary' }), campaign: fc.constant('\\N\t\0x'), term: fc.string(), content: fc.string() },
        { requiredKeys: [] },
      ),
      { nil: undefined },
    ),
    trigger: fc.option(fc.constant('qr' as const), { nil: undefined }),
    testId: fc.uuid(),
    variant: fc.integer({ min: 0, max: 3 }),
  },
  { requiredKeys: ['id', 'workspaceId', 'linkId', 'partnerId', 'at', 'ip', 'userAgent', 'referer', 'country'] },
);

describe('click records', () => {
  test('isoTime matches Date#toISOString for any time, in or out of order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 8_640_000_000_000 }), { minLength: 1, maxLength: 20 }), (times) => {
        for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
    );
  });

  test('the COPY text of a batch reads back as exactly the enriched records', () => {
    const lookup = (ip: string) => (ip === '8.8.8.8' ? 'US' : undefined);
    fc.assert(
      fc.property(fc.array(rawClick, { maxLength: 30 }), (clicks) => {
        const text = clickCopyText(clicks, lookup);
        const lines = text === '' ? [] : text.slice(0, -1).split('\n');
        expect(lines).toHaveLength(clicks.length);
        lines.forEach((line, i) => {
          const fields = parseCopyLine(line);
          expect(fields).toHaveLength(CLICK_COPY_COLUMNS.length);
          // visitor_flags: 0 without the claims of a batch (store.ts).
          const record = { ...enrichClick(clicks[i]!, lookup), visitorFlags: '0' } as unknown as Record<string, unknown>;
          const expected = COLUMN_KEYS.map((k) =>
            typeof record[k] === 'boolean' ? (record[k] ? 't' : 'f') : typeof record[k] === 'number' ? String(record[k]) : record[k],
          );
          expect(fields).toEqual(expected);
        });
      }),
    );
  });

  test('the groups counted while a batch is encoded are those of its enriched human clicks', () => {
    const lookup = (ip: string) => (ip === '8.8.8.8' ? 'US' : undefined);
    // Few distinct values, so that clicks share groups; times spread over a few quarter hours.
    const shared = fc.record<RawClick>(
      {
        id: fc.uuid(),
        workspaceId: fc.constantFrom('w1', 'w2'),
        linkId: fc.constantFrom('l1', 'l2'),
        partnerId: fc.constantFrom(null, 'p1'),
        at: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_000 + 3_600_000 }),
        ip: fc.constantFrom('127.0.0.1', '8.8.8.8'),
        userAgent: fc.constantFrom(...AGENTS),
        referer: fc.constantFrom(undefined, 'https://a.example/x', 'not a url'),
        country: fc.constantFrom(undefined, 'GB'),
        utm: fc.constantFrom(undefined, { source: 'news' }, { source: 'news', medium: '' }, { campaign: 'x\0' }),
        trigger: fc.constantFrom(undefined, 'qr' as const),
      },
      { requiredKeys: ['id', 'workspaceId', 'linkId', 'partnerId', 'at', 'ip', 'userAgent', 'referer', 'country'] },
    );
    const KEY_FIELDS = [
      'workspaceId',
      'linkId',
      'partnerId',
      'country',
      'device',
      'browser',
      'os',
      'referrer',
      'referrerUrl',
      'utmSource',
      'utmMedium',
      'utmCampaign',
      'utmTerm',
      'utmContent',
      'trigger',
    ] as const;
    fc.assert(
      fc.property(fc.array(fc.oneof(shared, rawClick), { maxLength: 60 }), (clicks) => {
        const groups = new ClickGroups();
        clickCopyText(clicks, lookup, 0, clicks.length, groups.add);
        const counted = new Map<string, number>();
        for (const row of groups.rows()) {
          const key = JSON.stringify([row.q, ...KEY_FIELDS.map((f) => row[f])]);
          counted.set(key, (counted.get(key) ?? 0) + row.n);
        }
        const expected = new Map<string, number>();
        for (const c of clicks) {
          const r = enrichClick(c, lookup);
          if (r.bot) continue;
          const q = new Date(Math.floor(c.at / 900_000) * 900_000).toISOString();
          const key = JSON.stringify([q, ...KEY_FIELDS.map((f) => r[f])]);
          expected.set(key, (expected.get(key) ?? 0) + 1);
        }
        expect(counted).toEqual(expected);
      }),
    );
  });

  test('copyField escapes exactly the characters COPY treats specially', () => {
    expect(copyField(null)).toBe('\\N');
    expect(copyField('\\N')).toBe('\\\\N');
    expect(copyField('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyField('café ☕')).toBe('café ☕');
  });

  test('a referrer is its host; a Referer that is not a URL counts as direct', () => {
    const base: RawClick = { id: 'i', workspaceId: 'w', linkId: 'l', partnerId: null, at: 0, ip: '', userAgent: '', referer: undefined, country: undefined };
    expect(enrichClick({ ...base, referer: 'https://news.example.org/a?b=1' }, () => undefined)).toMatchObject({
      referrer: 'news.example.org',
      referrerUrl: 'https://news.example.org/a?b=1',
    });
    expect(enrichClick({ ...base, referer: 'not a url' }, () => undefined)).toMatchObject({ referrer: '(direct)', referrerUrl: null });
    expect(enrichClick(base, () => undefined)).toMatchObject({ referrer: '(direct)', referrerUrl: null });
  });

  test('the chunks of a batch join into exactly its whole COPY text', async () => {
    const clicks = fc.sample(rawClick, { numRuns: 1234, seed: 7 });
    const lookup = () => 'GB';
    let joined = '';
    let chunks = 0;
    for await (const chunk of clickCopyChunks(clicks, lookup)) {
      joined += chunk;
      chunks++;
    }
    expect(chunks).toBe(3);
    expect(joined).toBe(clickCopyText(clicks, lookup));
  });
});
