import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { newId } from '../../../src/db/ids.js';
import type { RawClick } from '../../../src/modules/clicks/record.js';
import { ClickSpool, heartbeatName, parseSpoolName, segmentName, type SpoolOwner } from '../../../src/modules/clicks/spool.js';
import { ClickQueue } from '../../../src/modules/clicks/queue.js';
import { parseSpool, parseSpoolLine, SPOOL_HEADER, SpoolEncoder, spoolFile } from '../../../src/modules/clicks/spool-format.js';
import { SpoolReplayer, writerAlive } from '../../../src/modules/clicks/replay.js';
import { replayClicks } from '../../../src/modules/clicks/store.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { within } from '../../helpers/wait.js';

const waitFor = async (check: () => boolean | Promise<boolean>, ms: number) => expect(await within(ms, async () => check(), 20)).toBe(true);

const quiet = { warn: () => undefined, info: () => undefined };
const aClick = (over: Partial<RawClick> = {}): RawClick => ({
  id: newId(),
  workspaceId: newId(),
  linkId: newId(),
  partnerId: null,
  at: Date.now(),
  ip: '203.0.113.9',
  userAgent: 'Mozilla/5.0',
  referer: undefined,
  country: undefined,
  ...over,
});

const uuid = fc.uuid({ version: 4 });
// Whatever a visitor's query decodes to: tabs, newlines, backslashes, a literal `\N`, ''.
const utmValue = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('\\N', '\\', '\t', ''));
const rawClick = fc
  .record({
    id: uuid,
    workspaceId: uuid,
    linkId: uuid,
    partnerId: fc.option(uuid, { nil: null }),
    at: fc.integer({ min: 0, max: 253402300799999 }),
    ip: fc.string({ unit: 'binary', maxLength: 50 }),
    userAgent: fc.string({ unit: 'binary', maxLength: 300 }),
    referer: fc.option(fc.string({ unit: 'binary', maxLength: 300 }), { nil: undefined }),
    country: fc.option(fc.string({ unit: 'binary', maxLength: 4 }), { nil: undefined }),
    // One to five values (a click with none has no utm object).
    utm: fc.option(
      fc
        .record({ source: utmValue, medium: utmValue, campaign: utmValue, term: utmValue, content: utmValue }, { requiredKeys: [] })
        .filter((u) => Object.keys(u).length > 0),
      { nil: undefined },
    ),
    trigger: fc.option(fc.constant('qr' as const), { nil: undefined }),
    region: fc.option(fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('\\N', 'Île-de-France, FR')), { nil: undefined }),
    city: fc.option(fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('\\N', 'Zürich, CH')), { nil: undefined }),
    // An A/B test's click has both (operations.md §20), any other neither.
    test: fc.option(fc.record({ testId: uuid, variant: fc.integer({ min: 0, max: 3 }) }), { nil: undefined }),
  })
  .map(({ test, ...c }): RawClick => (test ? { ...c, ...test } : c));

/**
 * The line an instance of the v4 format wrote (each click whole on its line), as that instance's
 * writer made it: the fixtures of older files, which a newer instance must still replay.
 */
function v4Line(c: RawClick): string {
  const esc = (v: string) => v.replace(/[\\\t\n\r]/g, (ch) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[ch]!);
  const opt = (v: string | undefined) => (v === undefined ? '\\N' : esc(v));
  const u = c.utm ?? {};
  return (
    [c.id, c.workspaceId, c.linkId, c.partnerId ?? '\\N', c.at, esc(c.ip), opt(c.country), esc(c.userAgent), opt(c.referer)]
      .concat([u.source, u.medium, u.campaign, u.term, u.content].map(opt))
      .concat([c.trigger ?? '\\N', opt(c.region), opt(c.city), c.testId ?? '\\N', c.variant ?? '\\N'])
      .join('\t') + '\n'
  );
}
const V4 = 'linktrail-clicks v4\n';

/** The line an instance of the v1 format wrote: the first nine fields of v4's. */
const v1Line = (c: RawClick) => `${v4Line(c).slice(0, -1).split('\t').slice(0, 9).join('\t')}\n`;

/**
 * The v5 text of a file's clicks as the string writer made it (bf5a6b6, before the lines were
 * written as bytes): the bytes the spool writes must be its UTF-8, whatever a field holds.
 */
function v5Text(clicks: readonly RawClick[]): string {
  const esc = (v: string) => v.replace(/[\\\t\n\r]/g, (ch) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[ch]!);
  const opt = (v: string | undefined) => (v === undefined ? '\\N' : esc(v));
  const links = new Map<string, { n: number; ws: string; partner: string | null }>();
  const agents = new Map<string, number>();
  let text = '';
  for (const c of clicks) {
    let link = links.get(c.linkId);
    if (link === undefined || link.partner !== c.partnerId || link.ws !== c.workspaceId) {
      if (link === undefined && links.size >= 4096) links.clear();
      link = { n: link?.n ?? links.size, ws: c.workspaceId, partner: c.partnerId };
      links.set(c.linkId, link);
      text += `=L\t${link.n}\t${c.workspaceId}\t${c.linkId}\t${c.partnerId ?? '\\N'}\n`;
    }
    let agent = agents.get(c.userAgent);
    if (agent === undefined) {
      if (agents.size >= 4096) agents.clear();
      agent = agents.size;
      agents.set(c.userAgent, agent);
      text += `=A\t${agent}\t${esc(c.userAgent)}\n`;
    }
    const u = c.utm;
    const utm = u === undefined ? '\\N\t\\N\t\\N\t\\N\t\\N' : [u.source, u.medium, u.campaign, u.term, u.content].map(opt).join('\t');
    text +=
      `${c.id}\t${link.n}\t${c.at}\t${esc(c.ip)}\t${opt(c.country)}\t${agent}\t${opt(c.referer)}\t${utm}\t` +
      `${c.trigger ?? '\\N'}\t${opt(c.region)}\t${opt(c.city)}\t${c.testId ?? '\\N'}\t${c.variant ?? '\\N'}\n`;
  }
  return text;
}

/** Any UTF-16 text, lone surrogates and control characters included: what a header may decode to. */
const anyText = (maxLength: number) =>
  fc.oneof(fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)), maxLength }), fc.string({ unit: 'binary', maxLength }));

/** Clicks drawn from a few links (whose partner may change) and a few agents, as a spool's file holds them. */
const clicksOfFewLinks = fc
  .tuple(
    fc.array(rawClick, { minLength: 1, maxLength: 30 }),
    fc.array(rawClick, { minLength: 1, maxLength: 3 }),
    fc.array(uuid, { minLength: 1, maxLength: 2 }),
  )
  .map(([clicks, links, partners]) =>
    clicks.map((c, i) => {
      const link = links[i % links.length]!;
      return {
        ...c,
        workspaceId: link.workspaceId,
        linkId: link.linkId,
        userAgent: links[(i >> 1) % links.length]!.userAgent,
        partnerId: i % 4 === 3 ? partners[i % partners.length]! : link.partnerId,
      };
    }),
  );

describe('spool format', () => {
  test('every click reads back exactly, whatever its header-borne strings and UTM values hold', () => {
    fc.assert(
      fc.property(rawClick, (c) => {
        const lines = new SpoolEncoder().lines(c);
        expect(lines.endsWith('\n')).toBe(true);
        // The click's line, after its link's and agent's definitions: one line each, whatever the values hold.
        expect(lines.split('\n')).toHaveLength(4);
        expect(parseSpool(SPOOL_HEADER + lines)).toEqual({ clicks: [c], skipped: 0 });
      }),
      { numRuns: 500 },
    );
  });

  test('a file defines each link and agent once and reads back every click as written, a changed partner included', () => {
    fc.assert(
      fc.property(clicksOfFewLinks, (clicks) => {
        const text = spoolFile(clicks);
        expect(parseSpool(text)).toEqual({ clicks, skipped: 0 });
        // A link is defined again only when its partner changed since its last definition.
        const partnerOf = new Map<string, string | null>();
        let linkDefinitions = 0;
        for (const c of clicks) {
          if (partnerOf.get(c.linkId) !== c.partnerId || !partnerOf.has(c.linkId)) linkDefinitions++;
          partnerOf.set(c.linkId, c.partnerId);
        }
        const lines = text.split('\n');
        expect(lines.filter((l) => l.startsWith('=L\t'))).toHaveLength(linkDefinitions);
        expect(lines.filter((l) => l.startsWith('=A\t'))).toHaveLength(new Set(clicks.map((c) => c.userAgent)).size);
      }),
      { numRuns: 300 },
    );
  });

  test("a file's bytes are the UTF-8 of the text the string writer made, whatever the fields hold", () => {
    const wild = fc.record({
      ip: anyText(50),
      userAgent: anyText(300),
      referer: fc.option(anyText(300), { nil: undefined }),
      city: fc.option(anyText(40), { nil: undefined }),
    });
    fc.assert(
      fc.property(clicksOfFewLinks, fc.array(wild, { minLength: 1, maxLength: 30 }), (clicks, fields) => {
        const wilder = clicks.map((c, i) => ({ ...c, ...fields[i % fields.length]! }));
        const encoder = new SpoolEncoder();
        // Two turns, as the spool takes them: the second reuses the first's buffer.
        const half = wilder.length >> 1;
        for (const c of wilder.slice(0, half)) encoder.add(c);
        const first = Buffer.from(encoder.take());
        for (const c of wilder.slice(half)) encoder.add(c);
        const bytes = Buffer.concat([first, encoder.take()]);
        expect(bytes.equals(Buffer.from(v5Text(wilder), 'utf8'))).toBe(true);
      }),
      { numRuns: 500 },
    );
    // Past a turn's buffer (16 KiB) and the size it keeps (1 MiB): it grows, then starts over.
    const big = Array.from({ length: 3000 }, (_, i) => aClick({ userAgent: `agent ${i} ${'é'.repeat(400)}`, referer: 'x'.repeat(i % 700) }));
    const encoder = new SpoolEncoder();
    for (const c of big) encoder.add(c);
    const taken = encoder.take();
    expect(taken.length).toBeGreaterThan(1 << 20);
    expect(taken.equals(Buffer.from(v5Text(big), 'utf8'))).toBe(true);
    encoder.add(big[0]!);
    expect(encoder.take().toString('utf8')).toBe(v5Text(big.slice(0, 1)).split('\n').slice(-2).join('\n'));
  });

  test('past the links and agents it remembers, a file numbers them again and still reads back exactly', () => {
    const links = Array.from({ length: 5000 }, () => aClick());
    const clicks = Array.from({ length: 12_000 }, (_, i) => ({ ...links[(i * 7) % links.length]!, id: newId(), userAgent: `agent ${i % 4500}` }));
    const text = spoolFile(clicks);
    expect(parseSpool(text)).toEqual({ clicks, skipped: 0 });
    // Numbers are reused: none is past what a file remembers.
    expect(
      Math.max(
        ...text
          .split('\n')
          .filter((l) => l.startsWith('='))
          .map((l) => Number(l.split('\t')[1])),
      ),
    ).toBeLessThan(4096);
  });

  test('a file cut anywhere (a crash mid-write) yields exactly its whole click lines', () => {
    fc.assert(
      fc.property(clicksOfFewLinks, fc.nat(), (clicks, cutAt) => {
        const text = spoolFile(clicks);
        const cut = SPOOL_HEADER.length + (cutAt % (text.length - SPOOL_HEADER.length + 1));
        const { clicks: read } = parseSpool(text.slice(0, cut));
        const whole = text
          .slice(SPOOL_HEADER.length, cut)
          .split('\n')
          .slice(0, -1)
          .filter((l) => !l.startsWith('=')).length;
        expect(read).toEqual(clicks.slice(0, whole));
      }),
      { numRuns: 300 },
    );
  });

  test('v4 files, left by an older instance, are still read, every field as written', () => {
    fc.assert(
      fc.property(fc.array(rawClick, { maxLength: 10 }), (clicks) => {
        expect(parseSpool(V4 + clicks.map(v4Line).join(''))).toEqual({ clicks, skipped: 0 });
        for (const c of clicks) expect(parseSpoolLine(v4Line(c).slice(0, -1))).toEqual(c);
      }),
      { numRuns: 200 },
    );
  });

  test('v1 files, left by an older instance, are still read: their clicks have no UTM values nor trigger', () => {
    const ws = newId();
    const link = newId();
    const id = newId();
    const written = `linktrail-clicks v1\n${id}\t${ws}\t${link}\t\\N\t1767225600000\t203.0.113.9\tDE\tMozilla/5.0\\tx\thttps://news.example/\n`;
    expect(parseSpool(written)).toEqual({
      clicks: [
        {
          id,
          workspaceId: ws,
          linkId: link,
          partnerId: null,
          at: 1767225600000,
          ip: '203.0.113.9',
          country: 'DE',
          userAgent: 'Mozilla/5.0\tx',
          referer: 'https://news.example/',
        },
      ],
      skipped: 0,
    });
    fc.assert(
      fc.property(fc.array(rawClick, { maxLength: 10 }), (clicks) => {
        const { clicks: read, skipped } = parseSpool(`linktrail-clicks v1\n${clicks.map(v1Line).join('')}`);
        expect(skipped).toBe(0);
        expect(read).toEqual(clicks.map(({ utm: _utm, trigger: _trigger, region: _r, city: _c, testId: _t, variant: _v, ...v1 }) => v1));
      }),
      { numRuns: 200 },
    );
  });

  test('v2 files, left by an older instance, are still read: their clicks have no region nor city', () => {
    fc.assert(
      fc.property(fc.array(rawClick, { maxLength: 10 }), (clicks) => {
        const v2 = clicks.map((c) => `${v4Line(c).slice(0, -1).split('\t').slice(0, 15).join('\t')}\n`).join('');
        const { clicks: read, skipped } = parseSpool(`linktrail-clicks v2\n${v2}`);
        expect(skipped).toBe(0);
        expect(read).toEqual(clicks.map(({ region: _r, city: _c, testId: _t, variant: _v, ...v2click }) => v2click));
      }),
      { numRuns: 100 },
    );
  });

  test('v3 files, left by an older instance, are still read: their clicks joined no test', () => {
    fc.assert(
      fc.property(fc.array(rawClick, { maxLength: 10 }), (clicks) => {
        const v3 = clicks.map((c) => `${v4Line(c).slice(0, -1).split('\t').slice(0, 17).join('\t')}\n`).join('');
        const { clicks: read, skipped } = parseSpool(`linktrail-clicks v3\n${v3}`);
        expect(skipped).toBe(0);
        expect(read).toEqual(clicks.map(({ testId: _t, variant: _v, ...v3click }) => v3click));
      }),
      { numRuns: 100 },
    );
  });

  test('a test id without a variant, or a variant that is no digit, is skipped', () => {
    const c = aClick({ testId: newId(), variant: 1 });
    const line = v4Line(c).slice(0, -1).split('\t');
    expect(parseSpool(`${V4}${[...line.slice(0, 18), '\\N'].join('\t')}\n`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`${V4}${[...line.slice(0, 18), '12'].join('\t')}\n`)).toEqual({ clicks: [], skipped: 1 });
    const lines = new SpoolEncoder().lines(c).split('\n');
    const v5 = lines[2]!.split('\t');
    expect(parseSpool(`${SPOOL_HEADER}${lines[0]}\n${lines[1]}\n${[...v5.slice(0, 16), '\\N'].join('\t')}\n`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`${SPOOL_HEADER}${lines[0]}\n${lines[1]}\n${[...v5.slice(0, 16), '12'].join('\t')}\n`)).toEqual({ clicks: [], skipped: 1 });
  });

  test('a click line whose link or agent the file never defined, or a malformed definition, is skipped, not misread', () => {
    const c = aClick();
    const [link, agent, line] = new SpoolEncoder().lines(c).split('\n') as [string, string, string];
    expect(parseSpool(`${SPOOL_HEADER}${line}\n`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`${SPOOL_HEADER}${link}\n${line}\n`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`${SPOOL_HEADER}${agent}\n${line}\n`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`${SPOOL_HEADER}${link.replace(/\t0\t/, '\tx\t')}\n${agent}\n${line}\n`)).toEqual({ clicks: [], skipped: 2 });
    expect(parseSpool(`${SPOOL_HEADER}${link.slice(0, -3)}\n${agent}\n${line}\n`)).toEqual({ clicks: [], skipped: 2 });
    expect(parseSpool(`${SPOOL_HEADER}${link}\n${agent}\n${line}\n`)).toEqual({ clicks: [c], skipped: 0 });
  });

  test('a line of the other version, an unknown trigger or an unknown header is skipped, not misread', () => {
    const c = aClick({ utm: { source: 'news' }, trigger: 'qr' });
    const v5 = new SpoolEncoder().lines(c);
    expect(SPOOL_HEADER).toBe('linktrail-clicks v5\n');
    expect(parseSpool(`linktrail-clicks v1\n${v4Line(c)}`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`${V4}${v1Line(c)}`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`${V4}${v4Line(c).replace(/\tqr\t/, '\tlink\t')}`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`${SPOOL_HEADER}${v5.replace(/\tqr\t/, '\tlink\t')}`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`${SPOOL_HEADER}${v4Line(c)}`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`${V4}${v5}`)).toEqual({ clicks: [], skipped: 3 });
    expect(parseSpool(`linktrail-clicks v6\n${v5}`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`linktrail-clicks v3\n${v4Line(c)}`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`linktrail-clicks v2\n${v4Line(c)}`)).toEqual({ clicks: [], skipped: 1 });
    expect(parseSpool(`${V4}${v4Line(c)}`).clicks).toEqual([c]);
    expect(parseSpool(`${SPOOL_HEADER}${v5}`).clicks).toEqual([c]);
  });

  test('file names carry host, pid and start id', () => {
    const me: SpoolOwner = { host: 'box-1.example', pid: 4242, boot: 'ab12cd34' };
    expect(parseSpoolName(segmentName(me, 7))).toEqual({ ...me, kind: 'segment' });
    expect(parseSpoolName(heartbeatName(me))).toEqual({ ...me, kind: 'heartbeat' });
    expect(parseSpoolName('notes.txt')).toBeUndefined();
  });
});

describe('whether a spool writer is still alive', () => {
  const me: SpoolOwner = { host: 'a', pid: 100, boot: 'aaaa' };
  const alive = (pid: number) => pid === 200;
  test.each([
    ['this very process', { host: 'a', pid: 100, boot: 'aaaa' }, 1000, true],
    ['an earlier process under the same pid (a restarted container)', { host: 'a', pid: 100, boot: 'bbbb' }, 10, false],
    ['a dead pid on this host, even with a fresh heartbeat', { host: 'a', pid: 300, boot: 'cccc' }, 10, false],
    ['a live pid on this host with a fresh heartbeat', { host: 'a', pid: 200, boot: 'dddd' }, 10, true],
    ['a live pid on this host without a heartbeat (a reused pid)', { host: 'a', pid: 200, boot: 'dddd' }, undefined, false],
    ['another host with a fresh heartbeat', { host: 'b', pid: 300, boot: 'eeee' }, 10, true],
    ['another host with a stale heartbeat', { host: 'b', pid: 300, boot: 'eeee' }, 120_000, false],
  ] as const)('%s', (_name, writer, age, expected) => {
    expect(writerAlive(writer, me, age, 60_000, alive)).toBe(expected);
  });
});

describe('click spool on disk', () => {
  let dir: string;
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const newDir = () => (dir = mkdtempSync(join(tmpdir(), 'lt-spool-')));
  const spoolFiles = () => readdirSync(dir).filter((n) => n.endsWith('.clicks'));
  const onDisk = () => spoolFiles().flatMap((n) => parseSpool(readFileSync(join(dir, n), 'utf8')).clicks.map((c) => c.id));

  test('a visitor is answered only once the click is in the spool file, and the file goes once the database has it', async () => {
    newDir();
    const written: string[] = [];
    const q = new ClickQueue(async (b) => void written.push(...b.map((c) => c.id)), quiet, { batchSize: 1000, flushIntervalMs: 60_000, summaryMs: 0 });
    const spool = new ClickSpool(
      { dir, syncMs: 5, segmentMs: 0 },
      quiet,
      () => undefined,
      (c) => q.takeBack(c),
    );
    q.useSpool(spool);
    const clicks = Array.from({ length: 50 }, () => aClick());
    const seenAtAnswer: boolean[] = [];
    await Promise.all(
      clicks.map(
        (c) =>
          new Promise<void>((resolve) =>
            q.record(c, () => {
              seenAtAnswer.push(onDisk().includes(c.id));
              resolve();
            }),
          ),
      ),
    );
    expect(seenAtAnswer).toEqual(clicks.map(() => true));
    expect(spool.bytes).toBeGreaterThan(0);
    await q.flush();
    expect(written).toEqual(clicks.map((c) => c.id));
    // The segment is closed on the next heartbeat (segmentMs 0) and then deleted.
    await waitFor(() => spoolFiles().length === 0, 5000);
    await q.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  test('close() while the database is away keeps every unwritten click in the spool', async () => {
    newDir();
    const q = new ClickQueue(async () => Promise.reject(new Error('database away')), quiet, {
      batchSize: 1000,
      flushIntervalMs: 60_000,
      summaryMs: 0,
      closeMs: 200,
    });
    q.useSpool(
      new ClickSpool(
        { dir, syncMs: 50 },
        quiet,
        () => undefined,
        (c) => q.takeBack(c),
      ),
    );
    const clicks = Array.from({ length: 30 }, () => aClick());
    await Promise.all(clicks.map((c) => q.enqueue(c)));
    await q.close();
    expect(onDisk().sort()).toEqual(clicks.map((c) => c.id).sort());
  });

  test('close() with a database slower than the flood ends at its deadline: every click unwritten stays in the spool', async () => {
    newDir();
    const written: string[] = [];
    // Each batch of 2 takes 50 ms: 60 clicks would take 1.5 s, past closeMs 200.
    const slow = async (b: RawClick[]) => {
      await new Promise((r) => setTimeout(r, 50));
      written.push(...b.map((c) => c.id));
    };
    const q = new ClickQueue(slow, quiet, { batchSize: 2, flushIntervalMs: 60_000, summaryMs: 0, closeMs: 200 });
    q.useSpool(
      new ClickSpool(
        { dir, syncMs: 50 },
        quiet,
        () => undefined,
        (c) => q.takeBack(c),
      ),
    );
    const clicks = Array.from({ length: 60 }, () => aClick());
    await Promise.all(clicks.map((c) => q.enqueue(c)));
    await q.close();
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThan(clicks.length);
    // A segment goes once all of its clicks are written, so it may still hold some that are (the
    // replay writes a click id once); none is lost.
    const kept = onDisk();
    expect(kept.length).toBeGreaterThan(0);
    expect([...new Set([...written, ...kept])].sort()).toEqual(clicks.map((c) => c.id).sort());
  });

  test('beyond the memory capacity clicks are spilled to disk, answered at once, and replayed from there', async () => {
    newDir();
    const stored: string[] = [];
    const q = new ClickQueue(async (b) => void stored.push(...b.map((c) => c.id)), quiet, {
      batchSize: 1000,
      flushIntervalMs: 60_000,
      capacity: 5,
      summaryMs: 0,
    });
    const late: { replayer?: SpoolReplayer } = {};
    const spool = new ClickSpool(
      { dir, syncMs: 50, segmentMs: 0 },
      quiet,
      (p) => late.replayer!.add(p),
      (c) => q.takeBack(c),
    );
    const replayer = (late.replayer = new SpoolReplayer({ dir, owner: spool.owner, store: async (b) => void stored.push(...b.map((c) => c.id)), log: quiet }));
    q.useSpool(spool);
    cleanups.push(() => replayer.close());
    const clicks = Array.from({ length: 20 }, () => aClick());
    await Promise.all(clicks.map((c) => q.enqueue(c)));
    expect(q.size).toBe(5);
    expect(q.spilled).toBe(15);
    expect(q.hasRoom()).toBe(true);
    await q.flush();
    await waitFor(() => stored.length === 20, 5000);
    expect(stored.sort()).toEqual(clicks.map((c) => c.id).sort());
    await q.close();
  });
});

describe('replay of spool files left by dead processes', () => {
  let app: TestApp;
  let dir: string;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const deadPid = (): number => {
    const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    return Number(child.stdout.trim());
  };
  const countOf = async (ids: string[]) =>
    (
      await rows<{ n: number }>(
        app.database.db,
        sql`select count(*)::int as n from clicks where id in (${sql.join(
          ids.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})`,
      )
    )[0]!.n;

  test('files of a dead writer are replayed once into the database, files of live writers are left alone', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lt-replay-'));
    const me: SpoolOwner = { host: 'thishost', pid: process.pid, boot: '0000aaaa' };
    const dead: SpoolOwner = { host: 'thishost', pid: deadPid(), boot: '1111bbbb' };
    const liveElsewhere: SpoolOwner = { host: 'otherhost', pid: 77, boot: '2222cccc' };
    const write = (o: SpoolOwner, n: number, clicks: RawClick[], tail = '') => writeFileSync(join(dir, segmentName(o, n)), spoolFile(clicks) + tail);
    const deadClicks = Array.from({ length: 12 }, () => aClick());
    write(dead, 0, deadClicks.slice(0, 7));
    // The second file ends in a line cut short by the crash.
    write(dead, 1, deadClicks.slice(7), spoolFile([aClick()]).slice(SPOOL_HEADER.length, SPOOL_HEADER.length + 100));
    writeFileSync(join(dir, heartbeatName(dead)), 'x');
    const otherClicks = [aClick()];
    write(liveElsewhere, 0, otherClicks);
    writeFileSync(join(dir, heartbeatName(liveElsewhere)), 'x');
    // Two of the dead writer's clicks were committed before it died: replay must skip them.
    await replayClicks(app.database, deadClicks.slice(0, 2), () => undefined);

    const replayer = new SpoolReplayer({ dir, owner: { ...me, host: 'thishost' }, store: (b) => replayClicks(app.database, b, () => undefined), log: quiet });
    await replayer.scan();
    await replayer.close();
    expect(await countOf(deadClicks.map((c) => c.id))).toBe(12);
    expect(await countOf(otherClicks.map((c) => c.id))).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([heartbeatName(liveElsewhere), segmentName(liveElsewhere, 0)].sort());
    expect(replayer.replayed).toBe(12);

    // The other host's writer stops sending heartbeats: after staleMs it counts as dead too.
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(dir, heartbeatName(liveElsewhere)), old, old);
    const again = new SpoolReplayer({ dir, owner: me, store: (b) => replayClicks(app.database, b, () => undefined), log: quiet, staleMs: 60_000 });
    await again.scan();
    await again.close();
    expect(await countOf(otherClicks.map((c) => c.id))).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(true);
  });

  test("an older instance's v1 file and a v2 file are both replayed: UTM values and trigger as spooled, none from v1", async () => {
    dir = mkdtempSync(join(tmpdir(), 'lt-replay-'));
    const dead: SpoolOwner = { host: 'h', pid: deadPid(), boot: '5555ffff' };
    const older = aClick();
    const byQr = aClick({ utm: { source: 'poster', term: 'tab\there\nand \\N', content: '' }, trigger: 'qr' });
    const byLink = aClick({ utm: { medium: 'email' } });
    writeFileSync(join(dir, segmentName(dead, 0)), `linktrail-clicks v1\n${v1Line(older)}`);
    writeFileSync(join(dir, segmentName(dead, 1)), V4 + [byQr, byLink].map(v4Line).join(''));
    const replayer = new SpoolReplayer({
      dir,
      owner: { host: 'h', pid: process.pid, boot: '6666aaaa' },
      store: (b) => replayClicks(app.database, b, () => undefined),
      log: quiet,
    });
    await replayer.scan();
    await replayer.close();
    const stored = await rows<Record<string, string | null>>(
      app.database.db,
      sql`select id, utm_source, utm_medium, utm_campaign, utm_term, utm_content, "trigger" from clicks
           where id in (${sql.join(
             [older, byQr, byLink].map((c) => sql`${c.id}::uuid`),
             sql`, `,
           )})`,
    );
    const none = { utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null };
    const order = [older, byQr, byLink].map((c) => c.id);
    expect(stored.sort((a, b) => order.indexOf(a.id!) - order.indexOf(b.id!))).toEqual([
      { ...none, id: older.id, trigger: 'link' },
      { ...none, id: byQr.id, utm_source: 'poster', utm_term: 'tab\there\nand \\N', trigger: 'qr' },
      { ...none, id: byLink.id, utm_medium: 'email', trigger: 'link' },
    ]);
    expect(readdirSync(dir)).toEqual([]);
  });

  test('a replay that fails keeps the file for a later attempt', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lt-replay-'));
    const dead: SpoolOwner = { host: 'h', pid: deadPid(), boot: '3333dddd' };
    const clicks = [aClick(), aClick()];
    writeFileSync(join(dir, segmentName(dead, 0)), spoolFile(clicks));
    let fail = true;
    const replayer = new SpoolReplayer({
      dir,
      owner: { host: 'h', pid: process.pid, boot: '4444eeee' },
      store: async (b) => {
        if (fail) throw new Error('database away');
        await replayClicks(app.database, b, () => undefined);
      },
      log: quiet,
    });
    await replayer.scan();
    expect(spoolFiles(dir)).toHaveLength(1);
    fail = false;
    await waitFor(async () => (await countOf(clicks.map((c) => c.id))) === 2, 10_000);
    await replayer.close();
    expect(spoolFiles(dir)).toHaveLength(0);
  });
});

const spoolFiles = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.clicks'));
