import { describe, expect, test } from 'vitest';
import type { RawClick } from '../../../src/modules/clicks/record.js';
import { ClickQueue } from '../../../src/modules/clicks/queue.js';

const quiet = { warn: () => undefined, info: () => undefined };
let seq = 0;
const aClick = (): RawClick => ({
  id: `click-${++seq}`,
  workspaceId: 'w',
  linkId: 'l',
  partnerId: null,
  at: Date.now(),
  ip: '127.0.0.1',
  userAgent: 'ua',
  referer: undefined,
  country: undefined,
});

/** A writer the test opens and closes, recording each batch it is given. */
function gatedWriter() {
  const batches: string[][] = [];
  let open!: () => void;
  let gate = new Promise<void>((r) => (open = r));
  let failNext = false;
  return {
    batches,
    write: async (clicks: RawClick[]) => {
      await gate;
      if (failNext) {
        failNext = false;
        throw new Error('database away');
      }
      batches.push(clicks.map((c) => c.id));
    },
    open: () => open(),
    close: () => (gate = new Promise<void>((r) => (open = r))),
    failOnce: () => (failNext = true),
  };
}

describe('click queue', () => {
  test('without a spool, a full queue makes new clicks wait (never dropped, never beyond capacity) until a batch is written', async () => {
    const w = gatedWriter();
    const q = new ClickQueue(w.write, quiet, { batchSize: 3, flushIntervalMs: 60_000, capacity: 6 });
    let answeredAtOnce = 0;
    for (let i = 0; i < 6; i++) q.record(aClick(), () => answeredAtOnce++);
    expect(answeredAtOnce).toBe(6);
    expect(q.hasRoom()).toBe(false);
    const waiting = [q.enqueue(aClick()), q.enqueue(aClick())];
    expect(q.size).toBe(6);
    let admitted = false;
    void Promise.all(waiting).then(() => (admitted = true));
    // Nothing can make room while the write is held: a turn of the event loop lets any admission happen.
    await new Promise((r) => setImmediate(r));
    expect(admitted).toBe(false);
    w.open();
    await Promise.all(waiting);
    await q.close();
    expect(w.batches.flat()).toHaveLength(8);
    expect(new Set(w.batches.flat()).size).toBe(8);
    expect(w.batches.every((b) => b.length <= 3)).toBe(true);
    expect(q.written).toBe(8);
  });

  test('while the database is away, writes are retried with growing waits and logged once per state change', async () => {
    let now = 0;
    let calls = 0;
    let down = true;
    const lines: string[] = [];
    const log = { warn: (_o: object, m: string) => lines.push(`warn ${m}`), info: (_o: object, m: string) => lines.push(`info ${m}`) };
    const q = new ClickQueue(
      async () => {
        calls++;
        if (down) throw new Error('connection refused');
      },
      log,
      { batchSize: 2, flushIntervalMs: 60_000, capacity: 1000, summaryMs: 0 },
      () => now,
    );
    // Far more clicks than a batch, and the periodic tick every 10 ms for 10 s of clock time.
    for (let i = 0; i < 50; i++) q.enqueue(aClick());
    for (let t = 0; t < 1000; t++) {
      now += 10;
      await q.flushSoon();
    }
    // Exponential backoff from 250 ms up to 30 s: a handful of attempts in 10 s, not a thousand.
    expect(calls).toBeGreaterThan(3);
    expect(calls).toBeLessThan(12);
    expect(lines.filter((l) => l.startsWith('warn'))).toEqual(['warn click writes failing; retrying with backoff, clicks kept meanwhile']);
    down = false;
    now += 60_000;
    await q.flushSoon();
    expect(q.size).toBe(0);
    expect(q.written).toBe(50);
    expect(lines.at(-1)).toBe('info click writes working again');
    await q.close();
  });

  test('clicks that arrive during a write wait for the next flush instead of going out in tiny batches', async () => {
    const w = gatedWriter();
    const q = new ClickQueue(w.write, quiet, { batchSize: 4, flushIntervalMs: 60_000, capacity: 100 });
    for (let i = 0; i < 4; i++) q.enqueue(aClick()); // a whole batch starts a write
    q.enqueue(aClick()); // arrives while that write is under way
    w.open();
    // The first write is done (a tiny batch after it would have started at once, synchronously).
    await expect.poll(() => q.written).toBe(4);
    expect(w.batches.map((b) => b.length)).toEqual([4]);
    expect(q.size).toBe(1);
    await q.flush();
    expect(w.batches.map((b) => b.length)).toEqual([4, 1]);
    await q.close();
  });

  test('a failed write keeps its batch, the click stays pending, and the next flush writes it once', async () => {
    const w = gatedWriter();
    w.open();
    const q = new ClickQueue(w.write, quiet, { batchSize: 10, flushIntervalMs: 60_000, capacity: 100 });
    const c = aClick();
    q.enqueue(c);
    expect(q.isPending(c.id, c.workspaceId)).toBe(true);
    expect(q.isPending(c.id, 'another workspace')).toBe(false);
    w.failOnce();
    await q.flush();
    expect(w.batches).toEqual([]);
    expect(q.isPending(c.id, c.workspaceId)).toBe(true);
    await q.flush();
    expect(w.batches).toEqual([[c.id]]);
    expect(q.isPending(c.id, c.workspaceId)).toBe(false);
    await q.close();
  });

  test('flush() returns once every click queued before it is written, even with a write under way', async () => {
    const w = gatedWriter();
    const q = new ClickQueue(w.write, quiet, { batchSize: 2, flushIntervalMs: 60_000, capacity: 100 });
    q.enqueue(aClick());
    q.enqueue(aClick()); // starts a write, held at the gate
    q.enqueue(aClick());
    const flushed = q.flush();
    w.open();
    await flushed;
    expect(q.written).toBe(3);
    expect(q.size).toBe(0);
    await q.close();
  });
});
