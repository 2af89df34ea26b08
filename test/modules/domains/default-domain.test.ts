/**
 * The workspace's default domain (operations.md §21): PATCH /api/domains/{id} `{ default: true }`
 * puts new links on an active host (one at a time); `{ default: false }` goes back to the
 * short-link host; a pending host is 400 domain_not_active.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../../src/db/connect.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { branded, expectError, freshKey, SHORT_HOST, visit, type LinkOut } from '../links/branded.helpers.js';
import { expectStatus, freshHost } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type DomainOut = { id: string; host: string; status: string; default: boolean };

async function auditEntriesOf(workspaceId: string, domainId: string): Promise<number> {
  const [row] = await rows<{ n: number }>(
    t.database.db,
    sql`SELECT count(*)::int AS n FROM audit_entries WHERE workspace_id = ${workspaceId}::uuid AND ${domainId} = ANY(target_ids)`,
  );
  return Number(row!.n);
}

describe('PATCH /api/domains/{id} default', () => {
  it('makes an active host the default for new links (shortUrl on it, key the short id); links written before keep their domain', async () => {
    const b = await branded(t, { activeHost: true });
    const before = await b.create();
    const claimed = await b.api.send('GET', `/api/domains/${b.domainId}`);
    expect(claimed.json<DomainOut>().default).toBe(false);
    const auditedBefore = await auditEntriesOf(b.ws.id, b.domainId);
    const set = await b.api.send('PATCH', `/api/domains/${b.domainId}`, { default: true });
    expectStatus(set, 200);
    // The change is audited, in its own entry.
    expect(await auditEntriesOf(b.ws.id, b.domainId)).toBe(auditedBefore + 1);
    expect(set.json<DomainOut>()).toMatchObject({ host: b.host, default: true });
    const link = await b.create();
    expect(link).toMatchObject({ domain: b.host, key: link.shortId, shortUrl: `https://${b.host}/${link.shortId}` });
    expectStatus(await visit(t, b.host, `/${link.shortId}`), 302);
    const keyed = await b.create({ key: freshKey() });
    expect(keyed.shortUrl).toBe(`https://${b.host}/${keyed.key}`);
    // A link may still name the short-link host.
    expect((await b.create({ domain: SHORT_HOST })).domain).toBe(SHORT_HOST);
    const [kept] = (await b.api.send('GET', `/api/links?id=${before.id}`)).json<LinkOut[]>();
    expect(kept!.domain).toBe(SHORT_HOST);
    // GET ?key= without domain looks on the default domain.
    const found = await b.api.send('GET', `/api/links?key=${keyed.key}`);
    expect(found.json<LinkOut[]>().map((l) => l.id)).toEqual([keyed.id]);
  });

  it('one default at a time; default false goes back to the short-link host', async () => {
    const b = await branded(t, { activeHost: true });
    const second = await b.api.claim({ host: freshHost('second') });
    expectStatus(await t.admin('POST', `/domains/${second.id}/verify`), 200);
    expectStatus(await b.api.send('PATCH', `/api/domains/${b.domainId}`, { default: true }), 200);
    expectStatus(await b.api.send('PATCH', `/api/domains/${second.id}`, { default: true }), 200);
    const listed = (await b.api.send('GET', '/api/domains')).json<DomainOut[]>();
    expect(Object.fromEntries(listed.map((d) => [d.host, d.default]))).toEqual({ [b.host]: false, [second.host]: true });
    expect((await b.create()).domain).toBe(second.host);
    const off = await b.api.send('PATCH', `/api/domains/${second.id}`, { default: false });
    expect(off.json<DomainOut>().default).toBe(false);
    const link = await b.create();
    expect(link).toMatchObject({ domain: SHORT_HOST, key: null });
  });

  it('a pending host is 400 domain_not_active; nothing changes', async () => {
    const b = await branded(t);
    const pending = await b.api.claim({ host: freshHost('pending') });
    expectError(await b.api.send('PATCH', `/api/domains/${pending.id}`, { default: true }), 'domain_not_active', 'default');
    expect((await b.api.send('GET', `/api/domains/${pending.id}`)).json<DomainOut>().default).toBe(false);
    expect((await b.create()).domain).toBe(SHORT_HOST);
    // Another workspace's domain is not found.
    const other = await branded(t, { activeHost: true });
    expectStatus(await b.api.send('PATCH', `/api/domains/${other.domainId}`, { default: true }), 404);
  });

  it('a default host given up no longer takes new links', async () => {
    const b = await branded(t, { activeHost: true });
    expectStatus(await b.api.send('PATCH', `/api/domains/${b.domainId}`, { default: true }), 200);
    expectStatus(await b.api.send('DELETE', `/api/domains/${b.domainId}`), 200);
    expect((await b.create()).domain).toBe(SHORT_HOST);
  });
});
