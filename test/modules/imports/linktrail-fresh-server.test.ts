/**
 * POST /api/imports?source=linktrail into a fresh server (its own database) over HTTP (issue 25,
 * operations.md §13 "Export": ids kept where free): every record keeps its id, short URL and
 * aliases, so a click id handed out by the old server attributes a lead tracked on the new one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { analyticsBy, exportOf, expectSameRecords, filledWorkspace, importInto, type Rec } from './linktrail-helpers.js';

let oldServer: TestApp;
let newServer: TestApp;
let source: Rec[];
let sourceKey: string;
let clicks: string[];

beforeAll(async () => {
  oldServer = await startTestApp();
  // The same SHORT_LINK_BASE_URL (the test config's): an operator moving the service keeps it.
  newServer = await startTestApp({ database: await freshDatabase() });
  const filled = await filledWorkspace(oldServer);
  sourceKey = filled.api.ws.key;
  clicks = filled.clicks;
  source = await exportOf(oldServer, sourceKey);
});

afterAll(async () => {
  await oldServer?.close();
  await newServer?.close();
  await dropFreshDatabases();
});

describe('an export imported into a workspace of a fresh server', () => {
  let ws: WorkspaceFixture;
  let imported: Rec[];

  beforeAll(async () => {
    ws = await newServer.workspace();
    const file = source.map((r) => JSON.stringify(r)).join('\n');
    const job = await importInto(newServer, ws, file);
    expect(job).toMatchObject({ status: 'done', total: source.length, created: source.length, updated: 0, failed: 0 });
    imported = await exportOf(newServer, ws.key);
  });

  it('keeps every id, short URL and alias: the records are the source records', () => {
    const ids = expectSameRecords(source, imported, []);
    for (const [old, now] of ids) expect(now).toBe(old);
    expect(imported.find((r) => r.type === 'link' && r.title === 'Spring')!.aliases).toHaveLength(1);
  });

  it("claims the aliases' host for the workspace, pending its TXT record", async () => {
    const res = await newServer.inject({ method: 'GET', url: '/api/domains', headers: bearer(ws.key) });
    const alias = new URL((imported.find((r) => r.type === 'link' && r.title === 'Spring')!.aliases as string[])[0]!);
    expect(res.json<{ host: string; status: string }[]>().map((d) => `${d.host} ${d.status}`)).toEqual([`${alias.host} pending`]);
  });

  it('counts in analytics as the old server did', async () => {
    for (const groupBy of ['link', 'partner', 'country', 'trigger', 'timeseries']) {
      expect(await analyticsBy(newServer, ws.key, groupBy), groupBy).toEqual(await analyticsBy(oldServer, sourceKey, groupBy));
    }
  });

  it('attributes a lead tracked with a click id the old server handed out, and the old short URL answers', async () => {
    const link = imported.find((r) => r.type === 'click' && r.id === clicks[2])!.linkId;
    const res = await newServer.inject({
      method: 'POST',
      url: '/api/track/lead',
      headers: bearer(ws.key),
      payload: { clickId: clicks[2], eventName: 'Came back', customerExternalId: 'user-3', customerName: 'Linus' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ clickId: clicks[2], linkId: link });
    const shortUrl = imported.find((r) => r.id === link)!.shortUrl as string;
    const visit = await newServer.inject({ method: 'GET', url: new URL(shortUrl).pathname });
    expect(visit.statusCode).toBe(302);
    expect(visit.headers.location).toMatch(/^https:\/\/shop\.example\/a\?/);
  });
});
