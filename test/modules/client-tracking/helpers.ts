/**
 * Shared setup of the browser-tracking tests (operations.md §19): a workspace with a program
 * (10 % of sales, 200 per lead), its publishable key and allowed hostnames, approved partners
 * with their default links, and requests as a page of a site would send them.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';
import { DESKTOP } from '../../helpers/visitors.js';

export const SITE = 'https://shop.example';

export interface Site {
  key: string;
  ws: { id: string; key: string };
  ok(method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: unknown, status?: number): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the tests read whatever record the route answers
  send: Awaited<ReturnType<typeof workspaceWithCollection>>['send'];
  collectionId: string;
  /** A request of a page: the publishable key, the page's Origin, a visitor's address and browser. */
  page(url: string, body: unknown, o?: { origin?: string | null; ip?: string; ua?: string; key?: string }): Promise<LightMyRequestResponse>;
  partner(name: string, extra?: Record<string, unknown>): Promise<{ id: string; referralKey: string; defaultLinkId: string }>;
}

/** A workspace whose pages on `hostnames` may track, with a partner program unless `program` is false. */
export async function trackedSite(t: TestApp, o: { hostnames?: string[]; clientSales?: boolean; program?: boolean; trust?: boolean } = {}): Promise<Site> {
  const { ws, send, collectionId } = await workspaceWithCollection(t);
  const ok = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: unknown, status = 200) => {
    const res = await send(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    return res.json();
  };
  if (o.program !== false) {
    await ok('PUT', '/api/program', {
      name: 'Friends',
      slug: `t-${randomUUID().slice(0, 8)}`,
      landingUrl: `${SITE}/`,
      currency: 'usd',
      trustClientEvents: o.trust ?? false,
    });
    const [group] = await ok('GET', '/api/partner-groups');
    await ok('PUT', '/api/partner-groups', [
      {
        id: group.id,
        rewards: [
          { event: 'lead', type: 'flat', amount: 200 },
          { event: 'sale', type: 'percentage', amount: 1000 },
        ],
      },
    ]);
  }
  const settings = await ok('PUT', '/api/tracking', {
    allowedHostnames: o.hostnames ?? ['shop.example', '*.shop.example'],
    clientSales: o.clientSales ?? false,
  });
  const key = settings.publishableKey as string;
  const page: Site['page'] = (url, body, p = {}) =>
    t.inject({
      method: 'POST',
      url,
      remoteAddress: p.ip ?? '81.2.69.160',
      headers: {
        authorization: `Bearer ${p.key ?? key}`,
        'content-type': 'application/json',
        'user-agent': p.ua ?? DESKTOP,
        ...(p.origin === null ? {} : { origin: p.origin ?? SITE }),
      },
      payload: JSON.stringify(body),
    });
  return {
    key,
    ws,
    ok,
    send,
    collectionId,
    page,
    async partner(name, extra = {}) {
      const [p] = await ok('POST', '/api/partners', [{ name, ...extra }], 201);
      let found: { defaultLinkId: string | null; referralKey: string } | undefined;
      await expect
        .poll(async () => {
          found = (await ok('GET', '/api/partners?take=100')).find((x: { id: string }) => x.id === p.id);
          return found?.defaultLinkId ?? null;
        })
        .not.toBeNull();
      return { id: p.id as string, referralKey: found!.referralKey, defaultLinkId: found!.defaultLinkId! };
    },
  };
}

/**
 * An app clock that a test can stop (`freeze`) while it counts a window exactly: with Redis a
 * window is two minutes' counters, the last one's fading with the clock (infra/click-gate.ts).
 * `thaw` in afterEach, so a failed test leaves it running.
 */
export function standingClock(): { clock: () => Date; freeze(): void; thaw(): void } {
  let frozenAt: number | undefined;
  return {
    clock: () => new Date(frozenAt ?? Date.now()),
    freeze: () => void (frozenAt = Date.now()),
    thaw: () => void (frozenAt = undefined),
  };
}
