/**
 * POST /api/imports?source=linktrail over HTTP (issue 25, operations.md §13 "Export"): a
 * workspace's export imported into a fresh workspace of the same server reproduces every record
 * (ids taken here, so mapped anew, references following), analytics included; the same export
 * again changes nothing; a record changed in the file is updated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { startTestApp, type TestApp, type WorkspaceFixture } from '../../helpers/app.js';
import { conversionClient } from '../conversions/helpers.js';
import { analyticsBy, errorsOf, exportOf, expectSameRecords, filledWorkspace, importInto, type Rec } from './linktrail-helpers.js';

let t: TestApp;
let source: Rec[];
let host: string;
let sourceKey: string;

beforeAll(async () => {
  t = await startTestApp();
  const filled = await filledWorkspace(t);
  host = filled.host;
  sourceKey = filled.api.ws.key;
  source = await exportOf(t, filled.api.ws.key);
});

afterAll(async () => {
  await t?.close();
});

const file = (records: Rec[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const count = (type: string) => source.filter((r) => r.type === type).length;

describe('an export imported into a fresh workspace of the same server', () => {
  let ws: WorkspaceFixture;
  let imported: Rec[];
  let jobId: string;

  beforeAll(async () => {
    ws = await t.workspace();
    const job = await importInto(t, ws, file(source));
    jobId = job.id;
    expect(job).toMatchObject({
      status: 'done',
      source: 'linktrail',
      total: source.length,
      done: source.length,
      created: source.length,
      updated: 0,
      unchanged: 0,
      failed: 0,
      error: null,
    });
    imported = await exportOf(t, ws.key);
  });

  it('holds every record of the source, field for field, ids mapped and references following them', () => {
    expect({
      collection: count('collection'),
      tag: count('tag'),
      partner: count('partner'),
      link: count('link'),
      customer: count('customer'),
      click: count('click'),
      lead: count('lead'),
      sale: count('sale'),
    }).toEqual({ collection: 2, tag: 2, partner: 1, link: 3, customer: 2, click: 4, lead: 2, sale: 2 });
    const ids = expectSameRecords(source, imported, ['shortUrl', 'qrCode', 'aliases']);
    // Every id is taken on this server (by the source workspace): each record got another one.
    for (const [old, now] of ids) expect(now).not.toBe(old);
    // And another short id: the source link holds its own.
    const shortUrls = (rs: Rec[]) => rs.filter((r) => r.type === 'link').map((r) => r.shortUrl);
    for (const [i, s] of shortUrls(imported).entries()) expect(s).not.toBe(shortUrls(source)[i]);
    const sale = imported.find((r) => r.type === 'sale' && r.leadId !== null)!;
    expect(imported.find((r) => r.id === sale.leadId)).toMatchObject({ type: 'lead', eventName: 'Sign up' });
  });

  it('leaves out the alias another workspace holds, and says so, counting the link as written', async () => {
    expect(imported.filter((r) => r.type === 'link').map((r) => r.aliases)).toEqual([[], [], []]);
    const errors = parse(await errorsOf(t, ws, jobId)) as string[][];
    const linkLine = source.findIndex((r) => r.type === 'link' && (r.aliases as string[]).length > 0) + 1;
    expect(errors.slice(1).map((r) => r.slice(0, 3))).toEqual([[String(linkLine), 'aliases', 'alias_host_taken']]);
    expect(errors[1]![3]).toContain(`Imported without https://${host}/spring`);
  });

  it('counts in analytics as the source did', async () => {
    // Its own id mapping (the first test checks it field for field).
    const ids = expectSameRecords(source, imported, ['shortUrl', 'qrCode', 'aliases']);
    for (const groupBy of ['timeseries', 'country', 'device', 'referrer', 'utm_source', 'trigger']) {
      expect(await analyticsBy(t, ws.key, groupBy), groupBy).toEqual(await analyticsBy(t, sourceKey, groupBy));
    }
    for (const groupBy of ['link', 'partner']) expect(await analyticsBy(t, ws.key, groupBy), groupBy).toEqual(await analyticsBy(t, sourceKey, groupBy, ids));
    const totals = await analyticsBy(t, ws.key, 'link');
    expect(totals.reduce((n, g) => n + g.clicks, 0)).toBe(4);
    expect(totals.reduce((n, g) => n + g.saleAmount, 0)).toBe(5999);
  });

  it('the same export again: created 0, updated 0, every record unchanged', async () => {
    const again = await importInto(t, ws, file(source));
    expect(again).toMatchObject({ status: 'done', created: 0, updated: 0, unchanged: source.length, failed: 0 });
    expect(await exportOf(t, ws.key)).toEqual(imported);
  });

  it('a record changed in the file updates the record it became; a new one is created', async () => {
    const changed = source.map((r) => (r.type === 'collection' && r.name === 'Second' ? { ...r, name: 'Second (renamed)' } : r));
    const newTag = {
      type: 'tag',
      id: '0190a0a0-0000-7000-8000-00000000beef',
      name: 'gamma',
      color: null,
      createdAt: '2024-01-02T03:04:05.000Z',
      updatedAt: '2024-01-02T03:04:05.000Z',
    };
    changed.splice(
      changed.findIndex((r) => r.type === 'partner'),
      0,
      newTag,
    );
    // A workspace of its own, the export imported into it first: the others keep the export as it was.
    const own = await t.workspace();
    expect(await importInto(t, own, file(source))).toMatchObject({ status: 'done', created: source.length });
    const ids = expectSameRecords(source, await exportOf(t, own.key), ['shortUrl', 'qrCode', 'aliases']);
    const job = await importInto(t, own, file(changed));
    expect(job).toMatchObject({ status: 'done', created: 1, updated: 1, unchanged: source.length - 1, failed: 0 });
    const now = await exportOf(t, own.key);
    expect(now.find((r) => r.id === ids.get(source.find((s) => s.name === 'Second')!.id))!.name).toBe('Second (renamed)');
    // Free on this server: the tag keeps its id and dates.
    expect(now.find((r) => r.type === 'tag' && r.name === 'gamma')).toEqual(newTag);
  });
});

describe('an export imported into a workspace that has some of its names already', () => {
  it('takes the workspace’s tag of the same name and its customer of the same externalId', async () => {
    const api = await conversionClient(t);
    const tag = await api.send('POST', '/api/tags', [{ name: 'ALPHA' }]);
    expect(tag.statusCode, tag.body).toBe(201);
    const alphaHere = tag.json<{ id: string }[]>()[0]!.id;
    const clickId = await api.click(await api.link());
    const lead = await api.okLead({ clickId, eventName: 'Visit', customerExternalId: 'user-1', customerName: 'Someone' });
    const job = await importInto(t, api.ws, file(source));
    expect(job).toMatchObject({ status: 'done', created: source.length - 2, updated: 1, unchanged: 1, failed: 0 });
    const now = await exportOf(t, api.ws.key);
    // beta keeps its own (earlier) createdAt, so lists before ALPHA.
    expect(now.filter((r) => r.type === 'tag').map((r) => r.name)).toEqual(['beta', 'ALPHA']);
    const tagged = now.find((r) => r.type === 'link' && r.title === 'Spring')!;
    expect(tagged.tagIds).toHaveLength(2);
    expect(tagged.tagIds).toContain(alphaHere);
    const customers = now.filter((r) => r.type === 'customer');
    expect(customers.find((c) => c.externalId === 'user-1')).toMatchObject({ id: lead.customer.id, name: 'Ada', email: 'ada@example.com' });
    const leadsOfAda = now.filter((r) => r.type === 'lead' && r.customerExternalId === 'user-1');
    expect(leadsOfAda.map((r) => r.customerId)).toEqual([lead.customer.id, lead.customer.id]);
  });
});
