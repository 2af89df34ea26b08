import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { COPY_BINARY_HEADER, COPY_BINARY_TRAILER, writeTimeField, writeUuidField } from '../../../src/modules/clicks/copy-format.js';
import { CLICK_COPY_COLUMNS, clickCopyChunks, clickCopyRows, enrichClick, isoTime, type RawClick } from '../../../src/modules/clicks/record.js';
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

/** Each column's type, as PostgreSQL reads its binary COPY field. */
const COLUMN_TYPES: Record<string, 'uuid' | 'time' | 'text' | 'bool' | 'int2'> = {
  id: 'uuid',
  workspaceId: 'uuid',
  linkId: 'uuid',
  partnerId: 'uuid',
  createdAt: 'time',
  bot: 'bool',
  visitorFlags: 'int2',
  testId: 'uuid',
  variant: 'int2',
};

/** Reads binary COPY rows back, the way PostgreSQL does: each field as its column's value (text for the rest). */
function readCopyRows(buf: Buffer): (string | number | boolean | null)[][] {
  const rows: (string | number | boolean | null)[][] = [];
  let o = 0;
  while (o < buf.length) {
    const count = buf.readInt16BE(o);
    o += 2;
    const row: (string | number | boolean | null)[] = [];
    for (let i = 0; i < count; i++) {
      const length = buf.readInt32BE(o);
      o += 4;
      if (length === -1) {
        row.push(null);
        continue;
      }
      const bytes = buf.subarray(o, o + length);
      o += length;
      const type = COLUMN_TYPES[COLUMN_KEYS[i]!] ?? 'text';
      if (type === 'uuid') {
        expect(length).toBe(16);
        const hex = bytes.toString('hex');
        row.push(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`);
      } else if (type === 'time') {
        expect(length).toBe(8);
        row.push(new Date(Number(bytes.readBigInt64BE()) / 1000 + 946_684_800_000).toISOString());
      } else if (type === 'bool') row.push(bytes[0] === 1);
      else if (type === 'int2') row.push(bytes.readInt16BE());
      else row.push(bytes.toString('utf8'));
    }
    rows.push(row);
  }
  return rows;
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

  test('the binary COPY rows of a batch read back as exactly the enriched records', () => {
    const lookup = (ip: string) => (ip === '8.8.8.8' ? 'US' : undefined);
    fc.assert(
      fc.property(fc.array(rawClick, { maxLength: 30 }), (clicks) => {
        const rows = readCopyRows(clickCopyRows(clicks, lookup));
        expect(rows).toHaveLength(clicks.length);
        rows.forEach((fields, i) => {
          expect(fields).toHaveLength(CLICK_COPY_COLUMNS.length);
          // visitor_flags: 0 without the claims of a batch (store.ts).
          const record = { ...enrichClick(clicks[i]!, lookup), visitorFlags: 0 } as unknown as Record<string, unknown>;
          const expected = COLUMN_KEYS.map((k) =>
            COLUMN_TYPES[k] === 'uuid' && typeof record[k] === 'string' ? (record[k] as string).toLowerCase() : record[k],
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
        workspaceId: fc.constantFrom('00000000-0000-7000-8000-000000000001', '00000000-0000-7000-8000-000000000002'),
        linkId: fc.constantFrom('00000000-0000-7000-8000-0000000000a1', '00000000-0000-7000-8000-0000000000a2'),
        partnerId: fc.constantFrom(null, '00000000-0000-7000-8000-0000000000b1'),
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
        clickCopyRows(clicks, lookup, 0, clicks.length, groups.add);
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

  test('uuid and time fields are the bytes PostgreSQL stores; a value that is not a uuid is refused', () => {
    const buf = Buffer.alloc(20);
    writeUuidField(buf, 0, '0192F3A4-b5c6-7d8e-9fa0-b1c2d3e4f506');
    expect(buf.toString('hex')).toBe('00000010' + '0192f3a4b5c67d8e9fa0b1c2d3e4f506');
    for (const bad of ['0192f3a4-b5c6-7d8e-9fa0-b1c2d3e4f50g', '0192f3a4-b5c6-7d8e-9fa0-b1c2d3e4f5', 'w1'])
      expect(() => writeUuidField(buf, 0, bad)).toThrow(/not a uuid/);
    // Microseconds since 2000-01-01 UTC, as a signed 64-bit integer.
    const time = (ms: number) => {
      const b = Buffer.alloc(12);
      writeTimeField(b, 0, ms);
      expect(b.readInt32BE(0)).toBe(8);
      return b.readBigInt64BE(4);
    };
    expect(time(Date.UTC(2000, 0, 1))).toBe(0n);
    expect(time(0)).toBe(-946_684_800_000_000n);
    expect(time(Date.UTC(2026, 11, 1, 11, 59, 59, 999))).toBe(BigInt(Date.UTC(2026, 11, 1, 11, 59, 59, 999) - Date.UTC(2000, 0, 1)) * 1000n);
    // The instants of years 0001–9999: past ~2285 the microseconds exceed 2^53 (the CI once stored
    // 9999-12-31T23:59:59.999 a few microseconds late, and a period ending then missed it).
    const FIRST = Date.parse('0001-01-01T00:00:00.000Z');
    const LAST = Date.parse('9999-12-31T23:59:59.999Z');
    for (const ms of [FIRST, LAST, LAST - 1, Date.parse('2285-06-01T00:00:00.000Z')]) expect(time(ms)).toBe(BigInt(ms - 946_684_800_000) * 1000n);
    fc.assert(
      fc.property(fc.integer({ min: FIRST, max: LAST }), (ms) => {
        expect(time(ms)).toBe(BigInt(ms - 946_684_800_000) * 1000n);
      }),
    );
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

  test('the chunks of a batch join into exactly its whole binary COPY stream: header, rows, trailer', async () => {
    const clicks = fc.sample(rawClick, { numRuns: 1234, seed: 7 });
    const lookup = () => 'GB';
    const chunks: Buffer[] = [];
    for await (const chunk of clickCopyChunks(clicks, lookup)) chunks.push(chunk);
    // The header, 500 + 500 + 234 clicks, the trailer.
    expect(chunks).toHaveLength(5);
    expect(Buffer.concat(chunks)).toEqual(Buffer.concat([COPY_BINARY_HEADER, clickCopyRows(clicks, lookup), COPY_BINARY_TRAILER]));
    expect(COPY_BINARY_HEADER.toString('latin1')).toBe('PGCOPY\n\xff\r\n\0' + '\0'.repeat(8));
  });
});
