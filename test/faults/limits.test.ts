/**
 * A huge body and a slow client (both engines).
 *
 * A body over the limit (64 MB) is refused with 413 `body_too_large` and nothing is written,
 * whether it announces its length or streams it chunked, and the server keeps serving. A
 * client that sends its request slower than the request timeout (the headers, or the body,
 * trickling byte by byte) is cut off — a 408 or a closed socket — within a bounded time, while
 * other clients are served normally meanwhile.
 *
 * The socket tests run a second runtime on the same database with a short request timeout
 * (1 s), listening on a real port, because the timeout and the streaming only exist on sockets.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { bearer, onPostgres, testRuntimeOptions, startTestApp, testConfig, type TestApp } from '../helpers/app.js';

const REQUEST_TIMEOUT_MS = 1_000;
// Cut off well within this (a generous multiple of the timeout), never minutes later.
const CUT_OFF_BOUND_MS = 10_000;
const MB = 1024 * 1024;

let app: TestApp;
let rt: Runtime;
let port = 0;
/** A second listener with a long request timeout: sending 70 MB may take over a second on a loaded machine. */
let roomy: Runtime;
let roomyPort = 0;

beforeAll(async () => {
  app = await startTestApp();
  // PGlite can only be shared in process; share the database in both modes so the workspaces
  // made through `app` exist for `rt` too.
  rt = await createRuntime(testConfig(), { requestTimeoutMs: REQUEST_TIMEOUT_MS, database: app.database, ...testRuntimeOptions() });
  await rt.app.listen({ port: 0, host: '127.0.0.1' });
  const address = rt.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  port = address.port;
  roomy = await createRuntime(testConfig(), { requestTimeoutMs: 30_000, database: app.database, ...testRuntimeOptions() });
  await roomy.app.listen({ port: 0, host: '127.0.0.1' });
  roomyPort = (roomy.app.server.address() as { port: number }).port;
});

afterAll(async () => {
  await rt?.close();
  await roomy?.close();
  await app?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A JSON array of tag inputs of at least `bytes` bytes. */
function hugeTagArray(bytes: number): string {
  const item = JSON.stringify({ name: 'x'.repeat(40), color: 'blue' });
  const count = Math.ceil(bytes / (item.length + 1));
  return `[${new Array<string>(count).fill(item).join(',')}]`;
}

interface ErrorBody {
  error: { en: string; ar: string; code: string };
}

/** A raw connection to the listening runtime that records what comes back and when it closes. */
class RawClient {
  readonly socket: Socket;
  received = '';
  closed = false;
  readonly done: Promise<void>;

  constructor(to = port) {
    this.socket = connect(to, '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => (this.received += chunk));
    // Writes after the server hung up fail with EPIPE/ECONNRESET: expected here.
    this.socket.on('error', () => undefined);
    this.done = new Promise((resolve) =>
      this.socket.on('close', () => {
        this.closed = true;
        resolve();
      }),
    );
  }

  async connected(): Promise<void> {
    if (!this.socket.connecting) return;
    await new Promise<void>((resolve, reject) => this.socket.once('connect', resolve).once('error', reject));
  }

  write(data: string | Buffer): Promise<boolean> {
    if (this.closed || this.socket.destroyed || this.socket.writableEnded) return Promise.resolve(false);
    return new Promise((resolve) => this.socket.write(data, (err) => resolve(!err)));
  }

  /** The status of the first response, if one arrived. */
  status(): number | undefined {
    const m = /^HTTP\/1\.1 (\d{3})/.exec(this.received);
    return m ? Number(m[1]) : undefined;
  }

  /** The body of the first response (a JSON error body, for the 413). */
  body(): string {
    const at = this.received.indexOf('\r\n\r\n');
    return at < 0 ? '' : this.received.slice(at + 4);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** Polls (bounded) until `check` holds; whether it did. */
async function within(ms: number, check: () => boolean | Promise<boolean>, every = 50): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(every);
  }
}

/** Whether the server answered the slow request with a 408 or closed its socket. */
const cutOff = (c: RawClient) => c.closed || c.status() === 408;

/** Requests made meanwhile by well-behaved clients, over the same listening socket. */
async function othersServed(key: string): Promise<void> {
  const health = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5_000) });
  expect(health.status).toBe(200);
  const tags = await fetch(`http://127.0.0.1:${port}/api/tags`, { headers: bearer(key), signal: AbortSignal.timeout(5_000) });
  expect(tags.status).toBe(200);
  await tags.arrayBuffer();
}

describe('a huge body', () => {
  test(`70 MB JSON to POST /api/tags: 413 body_too_large, nothing written, the server still serves (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, async () => {
    const ws = await app.workspace();
    const payload = hugeTagArray(70 * MB);
    expect(payload.length).toBeGreaterThan(70 * MB);
    const res = await app.inject({ method: 'POST', url: '/api/tags', headers: { ...bearer(ws.key), 'content-type': 'application/json' }, payload });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(413);
    const body = res.json<ErrorBody>();
    expect(body.error.code).toBe('body_too_large');
    expect(body.error.en.length).toBeGreaterThan(0);
    expect(body.error.ar.length).toBeGreaterThan(0);

    const after = await app.inject({ method: 'GET', url: '/api/tags', headers: bearer(ws.key) });
    expect(after.statusCode).toBe(200);
    expect(after.json()).toEqual([]);
    const small = await app.inject({ method: 'POST', url: '/api/tags', headers: bearer(ws.key), payload: [{ name: 'small' }] });
    expect(small.statusCode, small.body).toBe(201);
  });

  test('over a socket, with Content-Length over the limit: 413 before the body is read, nothing written, the server still serves', async () => {
    const ws = await app.workspace();
    const c = new RawClient();
    try {
      await c.connected();
      const length = 70 * MB;
      await c.write(
        `POST /api/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ws.key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n[`,
      );
      // The answer comes without the client sending the 70 MB.
      expect(await within(CUT_OFF_BOUND_MS, () => c.status() !== undefined && c.body().includes('}'))).toBe(true);
      expect(c.status()).toBe(413);
      expect(JSON.parse(c.body()) as ErrorBody).toMatchObject({ error: { code: 'body_too_large' } });
    } finally {
      c.destroy();
    }
    await othersServed(ws.key);
    const after = await app.inject({ method: 'GET', url: '/api/tags', headers: bearer(ws.key) });
    expect(after.json()).toEqual([]);
  });

  test('over a socket, chunked without a length: 413 once the limit is passed, nothing written, the server still serves', async () => {
    const ws = await app.workspace();
    // The server answers 413 and closes while bytes are still on their way; the client's kernel
    // may then take the reset before the test has read the answer, and drop it (TCP). Each
    // attempt must end the connection without writing anything; at least one of five must have
    // the 413 read (three were all 'closed' once in a CI of 2026-11-29, on two loaded cores).
    const seen: (number | 'closed')[] = [];
    for (let attempt = 0; attempt < 5 && !seen.includes(413); attempt++) seen.push(await hugeChunkedPost(ws.key));
    expect(seen, 'answers of the attempts').toContain(413);
    await othersServed(ws.key);
    const after = await app.inject({ method: 'GET', url: '/api/tags', headers: bearer(ws.key) });
    expect(after.json()).toEqual([]);
  });
});

/** Up to 70 MB chunked to /api/tags, until the server answers or hangs up: its status with a body_too_large body, or 'closed' with none read. */
async function hugeChunkedPost(key: string): Promise<number | 'closed'> {
  const c = new RawClient(roomyPort);
  try {
    await c.connected();
    await c.write(
      `POST /api/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const item = JSON.stringify({ name: 'y'.repeat(40) });
    const chunk = Buffer.from(`${new Array<string>(Math.ceil(MB / (item.length + 1))).fill(item).join(',')},`);
    const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    await c.write('1\r\n[\r\n');
    // A short pause after each megabyte lets the answer be read before more is sent.
    for (let sent = 0; sent < 70 && c.status() === undefined && !c.closed; sent++) {
      if (!(await c.write(framed))) break;
      await sleep(50); // pacing: the client is slower than the server, on purpose, so the answer is read before the reset
    }
    expect(await within(CUT_OFF_BOUND_MS, () => c.status() !== undefined || c.closed)).toBe(true);
    const status = c.status();
    if (status === undefined) return 'closed';
    expect(status, c.received.slice(0, 300)).toBe(413);
    expect(await within(CUT_OFF_BOUND_MS, () => c.body().includes('body_too_large') || c.closed)).toBe(true);
    expect(c.body()).toContain('"body_too_large"');
    return status;
  } finally {
    c.destroy();
  }
}

describe('a slow client', () => {
  test(`a body trickling a byte at a time is cut off (408 or closed) after the request timeout (${REQUEST_TIMEOUT_MS} ms); others are served meanwhile; nothing written`, async () => {
    const ws = await app.workspace();
    const body = JSON.stringify([{ name: 'slow' }]);
    const c = new RawClient();
    let trickling = true;
    try {
      await c.connected();
      await c.write(
        `POST /api/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ws.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 1000}\r\n\r\n`,
      );
      // One byte every 200 ms: the declared length is never reached before the timeout.
      const trickle = (async () => {
        for (let i = 0; trickling && !c.closed; i++) {
          await c.write(i < body.length ? body[i]! : ' ');
          await sleep(200); // the slow client under test
        }
      })();
      // Meanwhile the server serves everyone else.
      await othersServed(ws.key);
      const cut = await within(CUT_OFF_BOUND_MS, () => cutOff(c));
      trickling = false;
      await trickle;
      expect(cut, `still connected after ${CUT_OFF_BOUND_MS} ms; received: ${JSON.stringify(c.received.slice(0, 200))}`).toBe(true);
      if (c.status() !== undefined) expect(c.status()).toBe(408);
    } finally {
      trickling = false;
      c.destroy();
    }
    await othersServed(ws.key);
    const after = await app.inject({ method: 'GET', url: '/api/tags', headers: bearer(ws.key) });
    expect(after.json()).toEqual([]);
  });

  test('headers that never finish (a byte at a time) are cut off (408 or closed) after the request timeout; others are served meanwhile', async () => {
    const ws = await app.workspace();
    const c = new RawClient();
    let trickling = true;
    try {
      await c.connected();
      await c.write(`GET /api/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ws.key}\r\n`);
      const trickle = (async () => {
        for (let i = 0; trickling && !c.closed; i++) {
          await c.write(i % 40 === 0 ? 'X-Slow: ' : 'a');
          await sleep(100); // the slow client under test: a byte every 100 ms
        }
      })();
      await othersServed(ws.key);
      const cut = await within(CUT_OFF_BOUND_MS, () => cutOff(c));
      trickling = false;
      await trickle;
      expect(cut, `still connected after ${CUT_OFF_BOUND_MS} ms; received: ${JSON.stringify(c.received.slice(0, 200))}`).toBe(true);
      if (c.status() !== undefined) expect(c.status()).toBe(408);
    } finally {
      trickling = false;
      c.destroy();
    }
    await othersServed(ws.key);
  });

  test('a client that sends its headers and then nothing is cut off (408 or closed) after the request timeout', async () => {
    const ws = await app.workspace();
    const c = new RawClient();
    try {
      await c.connected();
      await c.write(
        `POST /api/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ws.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[`,
      );
      await othersServed(ws.key);
      const cut = await within(CUT_OFF_BOUND_MS, () => cutOff(c));
      expect(cut, `still connected after ${CUT_OFF_BOUND_MS} ms; received: ${JSON.stringify(c.received.slice(0, 200))}`).toBe(true);
      if (c.status() !== undefined) expect(c.status()).toBe(408);
    } finally {
      c.destroy();
    }
    const after = await app.inject({ method: 'GET', url: '/api/tags', headers: bearer(ws.key) });
    expect(after.json()).toEqual([]);
  });
});
