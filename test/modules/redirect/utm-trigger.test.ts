/**
 * The UTM values and the trigger a click is stored with (issue 15), over HTTP on both ways in:
 * the framework route (`inject`) and the fast path (a real socket, the link cached by an
 * earlier visit). The stored values are those of the Location the visitor was sent to; a visit
 * through the link's QR code (its `text`) is recorded as 'qr', and the marker does not reach the
 * destination.
 */
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { bearer, startTestApp, type TestApp } from '../../helpers/app.js';
import { warmFastPath } from '../../helpers/fast-path.js';
import { DESKTOP } from '../../helpers/visitors.js';

let t: TestApp;
let base: string;
let key: string;
let collectionId: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.runtime.app.server.address() as AddressInfo).port}`;
  key = (await t.workspace()).key;
  collectionId = (await t.inject({ method: 'POST', url: '/api/collections', headers: bearer(key), payload: [{ name: 'c' }] })).json()[0].id;
});
afterAll(() => t?.close());

interface Link {
  id: string;
  path: string;
  /** The QR code's text (path and query), as a phone's camera opens it. */
  qrPath: string;
}

async function link(fields: Record<string, unknown> = {}): Promise<Link> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/links',
    headers: bearer(key),
    payload: [{ url: 'https://shop.example/p', collectionId, ...fields }],
  });
  expect(res.statusCode, res.body).toBe(201);
  const l = res.json()[0];
  const text = new URL(new URL(l.qrCode).searchParams.get('text')!);
  return { id: l.id, path: new URL(l.shortUrl).pathname, qrPath: text.pathname + text.search };
}

interface Sent {
  location: URL;
  clickId: string;
}

/** The two ways a visit is answered: the full route, and the fast path before the framework. */
const routes = {
  async framework(path: string, headers: Record<string, string> = {}): Promise<Sent> {
    const res = await t.inject({ method: 'GET', url: path, headers: { 'user-agent': DESKTOP, ...headers } });
    expect(res.statusCode, res.body).toBe(302);
    const location = new URL(res.headers.location as string);
    return { location, clickId: location.searchParams.get('ltid')! };
  },
  async fast(path: string, headers: Record<string, string> = {}): Promise<Sent> {
    await warmFastPath(base, path.split('?')[0]!);
    const res = await fetch(base + path, { redirect: 'manual', headers: { 'user-agent': DESKTOP, ...headers } });
    expect(res.status).toBe(302);
    expect(res.headers.get('x-request-id')).toBeNull(); // answered before Fastify
    const location = new URL(res.headers.get('location')!);
    return { location, clickId: location.searchParams.get('ltid')! };
  },
};

interface StoredClick {
  id: string;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
  trigger: string;
}

/** The stored click of this id (clicks are written in batches: polled for at most 5 s). */
async function stored(clickId: string): Promise<StoredClick> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const [found] = await rows<StoredClick>(
      t.database.db,
      sql`SELECT id, utm_source AS "utmSource", utm_medium AS "utmMedium", utm_campaign AS "utmCampaign", utm_term AS "utmTerm",
                 utm_content AS "utmContent", "trigger"
            FROM clicks WHERE id = ${clickId}`,
    );
    if (found) return found;
    if (Date.now() >= deadline) throw new Error(`click ${clickId} not stored`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const none = { utmSource: null, utmMedium: null, utmCampaign: null, utmTerm: null, utmContent: null };

describe.each(Object.entries(routes))('through the %s route', (_name, visit) => {
  it("the link's utm values are stored with a click by the link itself (trigger 'link')", async () => {
    const l = await link({ utm: { source: 'news', medium: 'email', referral: 'partner-x' } });
    const sent = await visit(l.path);
    expect(sent.location.searchParams.get('utm_source')).toBe('news');
    expect(await stored(sent.clickId)).toEqual({ ...none, id: sent.clickId, utmSource: 'news', utmMedium: 'email', trigger: 'link' });
  });

  it("the visitor's own utm parameters replace the link's and add to them", async () => {
    const l = await link({ utm: { source: 'news', medium: 'email' } });
    const sent = await visit(`${l.path}?utm_source=x&utm_term=t&utm_content=50%25+off`);
    expect(sent.location.searchParams.get('utm_source')).toBe('x');
    expect(await stored(sent.clickId)).toMatchObject({
      utmSource: 'x',
      utmMedium: 'email',
      utmTerm: 't',
      utmContent: '50% off',
      utmCampaign: null,
      trigger: 'link',
    });
  });

  it("the destination's own utm parameters are stored when neither the link nor the visitor sets them", async () => {
    const l = await link({ url: 'https://shop.example/p?utm_campaign=spring&utm_source=site', utm: { source: 'news' } });
    const sent = await visit(l.path);
    expect(sent.location.searchParams.getAll('utm_source')).toEqual(['news']);
    expect(await stored(sent.clickId)).toMatchObject({ utmSource: 'news', utmCampaign: 'spring', utmMedium: null, trigger: 'link' });
  });

  it('a click with no utm value anywhere stores none', async () => {
    const l = await link({ url: 'https://shop.example/p?x=1' });
    const sent = await visit(`${l.path}?y=2`);
    expect(await stored(sent.clickId)).toEqual({ ...none, id: sent.clickId, trigger: 'link' });
  });

  it("a visit through the QR code's URL is stored as 'qr'; the marker is not passed on to the destination", async () => {
    const l = await link({ url: 'https://shop.example/p?x=1', utm: { medium: 'print' } });
    expect(l.qrPath).toBe(`${l.path}?ltqr=1`);
    const sent = await visit(l.qrPath);
    expect([...sent.location.searchParams.keys()]).toEqual(['x', 'utm_medium', 'ltid']);
    expect(sent.location.href).not.toContain('ltqr');
    expect(await stored(sent.clickId)).toEqual({ ...none, id: sent.clickId, utmMedium: 'print', trigger: 'qr' });
    // A QR URL with more in its query (a printed poster's campaign): the rest is passed on.
    const poster = await visit(`${l.qrPath}&utm_source=poster`);
    expect(poster.location.searchParams.get('utm_source')).toBe('poster');
    expect(poster.location.href).not.toContain('ltqr');
    expect(await stored(poster.clickId)).toMatchObject({ utmSource: 'poster', utmMedium: 'print', trigger: 'qr' });
    // The same link opened as a link.
    const plain = await visit(l.path);
    expect(await stored(plain.clickId)).toMatchObject({ trigger: 'link' });
  });
});

describe('the QR marker behind a password', () => {
  it("survives the form: the unlocked visit is stored as 'qr' and forwarded without the marker", async () => {
    const l = await link({ password: 'open sesame', utm: { source: 'flyer' } });
    const form = await t.inject({ method: 'GET', url: l.qrPath, headers: { 'user-agent': DESKTOP } });
    expect(form.statusCode).toBe(401);
    expect(form.body).toContain(`action="${l.qrPath.replace('&', '&amp;')}"`);
    const unlocked = await t.inject({
      method: 'POST',
      url: l.qrPath,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': DESKTOP },
      payload: 'password=open+sesame',
    });
    expect(unlocked.statusCode).toBe(303);
    expect(unlocked.headers.location).toBe(l.qrPath);
    const cookie = String(unlocked.headers['set-cookie']).split(';')[0]!;
    const sent = await routes.framework(unlocked.headers.location as string, { cookie });
    expect(sent.location.href).not.toContain('ltqr');
    expect(await stored(sent.clickId)).toMatchObject({ utmSource: 'flyer', trigger: 'qr' });
  });
});
