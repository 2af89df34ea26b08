/**
 * Routes that need no credential read at most 64 KB (the Stripe webhook 1 MB) and answer 413
 * `body_too_large` before parsing (operations.md §15, review of 2026-11-24): a declared
 * Content-Length is refused before a byte of the body is read, a chunked body at the first
 * chunk past the limit, and the connection is closed so the rest is never read. Over a real
 * socket: while a stranger's 31 MB upload is under way the service keeps answering.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp, type WorkspaceFixture } from '../helpers/app.js';

const MB = 1024 * 1024;
const BIG = 31 * MB;
const CHUNK = 32 * 1024;

let app: TestApp;
let ws: WorkspaceFixture;
let port: number;

beforeAll(async () => {
  app = await startTestApp();
  await app.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.runtime.app.server.address() as AddressInfo).port;
  ws = await app.workspace({ plan: 'enterprise' });
});
afterAll(async () => {
  await app?.close();
});

interface Upload {
  status: number;
  body: { error?: { code: string; en: string; ar: string } };
  headers: IncomingMessage['headers'];
  /** Bytes of the body the client had handed to its socket when the answer came. */
  sentWhenAnswered: number;
}

/**
 * Posts `total` bytes of a JSON-looking body in chunks, giving the loop a turn between chunks,
 * and stops sending as soon as the answer arrives (or the server closes the socket).
 * `chunked`: no Content-Length. `midway` runs once after the first chunk, before any more is sent.
 */
function upload(path: string, total: number, opts: { chunked: boolean; headers?: Record<string, string>; midway?: () => Promise<void> }): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
    if (!opts.chunked) headers['content-length'] = String(total);
    let pumped: Promise<void> = Promise.resolve();
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      answered = true;
      const sentWhenAnswered = sent;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        const answer = { status: res.statusCode ?? 0, body: text.startsWith('{') ? JSON.parse(text) : {}, headers: res.headers, sentWhenAnswered };
        void pumped.then(() => resolve(answer), reject);
      });
    });
    // The server closes the connection after its 413: later writes fail, which is the point.
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    const chunk = Buffer.alloc(CHUNK, 0x20);
    chunk[0] = 0x7b; // '{'
    const pump = async () => {
      while (!answered && sent < total && !req.destroyed) {
        const piece = chunk.subarray(0, Math.min(CHUNK, total - sent));
        sent += piece.length;
        if (!req.write(piece)) await drainedOrClosed(req);
        if (sent === piece.length && opts.midway) await opts.midway();
        await new Promise((r) => setImmediate(r));
      }
      if (!answered && !req.destroyed) req.end();
    };
    pumped = pump();
    pumped.catch(reject);
  });
}

function drainedOrClosed(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done).off('close', done);
      resolve();
    };
    req.on('drain', done).on('close', done);
  });
}

async function healthz(): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  await res.arrayBuffer();
  return res.status;
}

function expectTooLarge(res: Upload): void {
  expect(res.status, JSON.stringify(res.body)).toBe(413);
  expect(res.body.error?.code).toBe('body_too_large');
  expect(res.body.error?.en).toMatch(/too large/i);
  expect(res.body.error?.ar).toMatch(/[\u0600-\u06ff]/);
  expect(res.headers.connection).toBe('close');
}

describe('a 31 MB body to a route that needs no credential', () => {
  test('with Content-Length: 413 before the body is read; the loop stays free; other requests are answered meanwhile', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let concurrent = 0;
    const res = await upload('/api/auth/login', BIG, {
      chunked: false,
      midway: async () => {
        concurrent = await healthz();
      },
    });
    delay.disable();
    expectTooLarge(res);
    // Answered while the upload was still going: nowhere near the whole body was sent.
    expect(res.sentWhenAnswered).toBeLessThan(BIG / 2);
    expect(concurrent).toBe(200);
    console.log(`content-length: answered after ${(res.sentWhenAnswered / MB).toFixed(2)} MB sent, longest stall ${(delay.max / 1e6).toFixed(0)} ms`);
    // Generous: tells "stuck for seconds buffering and scanning 31 MB" from "fine".
    expect(delay.max / 1e6).toBeLessThan(1000);
  }, 60_000);

  test('chunked, without Content-Length: 413 once past 64 KB, the rest never read; a GET sent mid-upload is answered first', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const order: string[] = [];
    const res = await upload('/api/auth/login', BIG, {
      chunked: true,
      midway: async () => {
        // 32 KB sent, under the limit: the upload is open and waiting for more.
        expect(await healthz()).toBe(200);
        order.push('get answered');
      },
    }).then((r) => {
      order.push('upload answered');
      return r;
    });
    delay.disable();
    expectTooLarge(res);
    expect(order).toEqual(['get answered', 'upload answered']);
    expect(res.sentWhenAnswered).toBeGreaterThan(64 * 1024);
    expect(res.sentWhenAnswered).toBeLessThan(BIG / 2);
    console.log(`chunked: answered after ${(res.sentWhenAnswered / MB).toFixed(2)} MB sent, longest stall ${(delay.max / 1e6).toFixed(0)} ms`);
    expect(delay.max / 1e6).toBeLessThan(1000);
  }, 60_000);

  test('just over 64 KB is refused on the other public routes too (second factor, password reset, setup, invites); just under is parsed', async () => {
    for (const path of ['/api/auth/login', '/api/auth/mfa', '/api/auth/password-reset', '/api/setup', '/api/invites/lookup']) {
      expectTooLarge(await upload(path, 64 * 1024 + 1, { chunked: false }));
      expectTooLarge(await upload(path, 64 * 1024 + 1, { chunked: true }));
    }
    // Under the limit the body reaches the parser: spaces after '{' are malformed JSON, a 400.
    const under = await upload('/api/auth/login', 60 * 1024, { chunked: false });
    expect(under.status).toBe(400);
    expect(under.body.error?.code).toBe('malformed_json');
  }, 60_000);

  test('the Stripe webhook reads up to 1 MB: 1.5 MB is 413, 900 KB reaches the route', async () => {
    const path = '/webhooks/stripe/00000000-0000-4000-8000-000000000000';
    expectTooLarge(await upload(path, 1.5 * MB, { chunked: false }));
    expectTooLarge(await upload(path, 1.5 * MB, { chunked: true }));
    const under = await upload(path, 900 * 1024, { chunked: false });
    expect(under.status).not.toBe(413);
  }, 60_000);

  test('a path no route serves answers 404 before reading the body, and closes the connection', async () => {
    for (const chunked of [false, true]) {
      const res = await upload('/api/no-such-route', BIG, { chunked });
      expect(res.status).toBe(404);
      expect(res.body.error?.code).toBe('route_not_found');
      expect(res.headers.connection).toBe('close');
      expect(res.sentWhenAnswered).toBeLessThan(BIG / 2);
    }
  }, 60_000);

  test('an authenticated route still takes bodies far over 64 KB', async () => {
    const tags = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ name: `tag-${i}-${'x'.repeat(200)}`.slice(0, 60), color: 'blue' })));
    const padded = tags + ' '.repeat(200 * 1024);
    const res = await fetch(`http://127.0.0.1:${port}/api/tags`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json' },
      body: padded,
    });
    const body = await res.text();
    expect(res.status, body).not.toBe(413);
    expect(res.status, body).toBeLessThan(500);
  });
});
