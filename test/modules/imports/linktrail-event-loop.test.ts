/**
 * A 50 MB Linktrail export is read without holding the event loop (issue 25: never a stall over
 * 100 ms): a 10 ms interval keeps ticking while every line is parsed and checked, as the CSV
 * reader's test measures it (event-loop.test.ts: the same generous bound, for the same shared
 * machine). Two shapes: many ordinary click lines, and lines too long to read (refused unread).
 */
import { describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../../../src/modules/imports/csv-file.js';
import { exportBatches, MAX_LINE_BYTES } from '../../../src/modules/imports/linktrail/read.js';

const GAP_BOUND_MS = 500;

async function longestGapWhile(work: () => Promise<void>): Promise<{ longest: number; ticks: number }> {
  let last = performance.now();
  let longest = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    ticks++;
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return { longest: Math.max(longest, performance.now() - last), ticks };
}

function fiftyMegabytes(line: (n: number) => string): Buffer {
  const file = Buffer.alloc(MAX_FILE_BYTES);
  let size = 0;
  for (let n = 0; ; n++) {
    const text = line(n);
    if (size + Buffer.byteLength(text) > MAX_FILE_BYTES) break;
    size += file.write(text, size);
  }
  return file.subarray(0, size);
}

async function readAll(file: Buffer): Promise<{ ok: number; rejected: number; batches: number }> {
  const out = { ok: 0, rejected: 0, batches: 0 };
  for await (const batch of exportBatches(file)) {
    out.batches++;
    for (const l of batch.lines) {
      if (l.ok) out.ok++;
      else out.rejected++;
    }
  }
  return out;
}

describe('a 50 MB linktrail file', () => {
  it('of click lines keeps a 10 ms interval ticking', async () => {
    const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
    const click = (n: number) =>
      `${JSON.stringify({ type: 'click', id: uuid(n), linkId: uuid(1), partnerId: null, createdAt: '2025-01-01T00:00:00.000Z', country: 'GB', device: 'desktop', browser: 'Chrome', os: 'Windows', referrer: 'news.example', referrerUrl: `https://news.example/${n}`, utmSource: 'news', utmMedium: null, utmCampaign: 'spring', utmTerm: null, utmContent: null, trigger: 'link' })}\n`;
    const file = fiftyMegabytes(click);
    let read = { ok: 0, rejected: 0, batches: 0 };
    const { longest, ticks } = await longestGapWhile(async () => {
      read = await readAll(file);
    });
    expect(read.ok).toBeGreaterThan(100_000);
    expect(read.rejected).toBe(0);
    // Ticks all along the read (one synchronous parse would tick at neither end only).
    expect(ticks).toBeGreaterThan(10);
    expect(longest).toBeLessThan(GAP_BOUND_MS);
  });

  it('of lines too long to read refuses each unread, and keeps ticking', async () => {
    const long = `{"type":"link","title":"${'x'.repeat(MAX_LINE_BYTES)}"}\n`;
    const file = fiftyMegabytes(() => long);
    let read = { ok: 0, rejected: 0, batches: 0 };
    const { longest } = await longestGapWhile(async () => {
      read = await readAll(file);
    });
    expect(read).toMatchObject({ ok: 0, rejected: Math.floor(MAX_FILE_BYTES / long.length) });
    expect(longest).toBeLessThan(GAP_BOUND_MS);
  });
});
