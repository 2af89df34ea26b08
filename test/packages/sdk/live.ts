/**
 * The SDK's tests run it as a client would: against the real service listening on a socket,
 * through the platform's fetch. Helpers: the server, a client counting its requests, a
 * visitor's click, and a proxy that answers as the test says after forwarding.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { Linktrail, type LinktrailOptions } from '../../../packages/sdk/src/index.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';

export interface LiveServer {
  t: TestApp;
  baseUrl: string;
  close(): Promise<void>;
}

export async function startLiveServer(options: Parameters<typeof startTestApp>[0] = {}): Promise<LiveServer> {
  const t = await startTestApp(options);
  await t.runtime.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.runtime.app.server.address() as AddressInfo;
  return { t, baseUrl: `http://127.0.0.1:${port}`, close: () => t.close() };
}

export interface Sent {
  method: string;
  url: URL;
}

/** A client of `baseUrl` whose requests are recorded in `sent`. */
export function countingClient(options: LinktrailOptions): { client: Linktrail; sent: Sent[] } {
  const sent: Sent[] = [];
  const client = new Linktrail({
    ...options,
    fetch: (input, init) => {
      sent.push({ method: init.method ?? 'GET', url: new URL(input) });
      return (options.fetch ?? fetch)(input, init);
    },
  });
  return { client, sent };
}

/** A visitor opens the short link (through inject: a visitor, not the SDK); the click id. */
export async function click(t: TestApp, shortUrl: string): Promise<string> {
  const res = await t.inject({
    method: 'GET',
    url: new URL(shortUrl).pathname,
    remoteAddress: '81.2.69.160',
    headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' },
  });
  expect(res.statusCode, res.body).toBe(302);
  return new URL(res.headers.location as string).searchParams.get('ltid')!;
}

/** What the proxy does with a request: forward it and pass the answer on, or answer `status` (after forwarding, when `forward`). */
export type ProxyPlan = { answer: 'pass' } | { answer: number; forward: boolean };

export interface Proxy {
  baseUrl: string;
  /** Requests seen, in order. */
  seen: { method: string; path: string }[];
  close(): Promise<void>;
}

/** An HTTP proxy in front of `upstream` that asks `plan` what to do with each request. */
export async function startProxy(upstream: string, plan: (req: http.IncomingMessage, index: number) => ProxyPlan): Promise<Proxy> {
  const seen: Proxy['seen'] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const index = seen.push({ method: req.method!, path: req.url! }) - 1;
    const what = plan(req, index);
    let answer: Response | undefined;
    if (what.answer === 'pass' || what.forward) {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<
        string,
        string
      >;
      answer = await fetch(upstream + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    }
    if (what.answer === 'pass' && answer) {
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
      return;
    }
    await answer?.arrayBuffer();
    res.writeHead(what.answer as number, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { en: 'Service unavailable for a moment.', ar: 'الخدمة غير متاحة للحظة.', code: 'unavailable' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
