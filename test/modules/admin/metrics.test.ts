/**
 * GET /admin/metrics (operations.md §17): this process's figures as JSON, and in Prometheus's
 * text format for a scraper, read back here by a Prometheus text parser.
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricName, prometheusText } from '../../../src/modules/admin/prometheus.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { workspaceWithCollection } from '../../helpers/client.js';

let t: TestApp;
let shortPath: string;

beforeAll(async () => {
  t = await startTestApp();
  const api = await workspaceWithCollection(t);
  const link = await api.send('POST', '/api/links', [{ url: 'https://shop.example/metrics', collectionId: api.collectionId }]);
  expect(link.statusCode, link.body).toBe(201);
  shortPath = new URL(link.json<{ shortUrl: string }[]>()[0]!.shortUrl).pathname;
});
afterAll(() => t?.close());

type Family = { name: string; type: string; metrics: { value: string }[] };
const scrape = async (): Promise<Map<string, number>> => {
  const res = await t.admin('GET', '/metrics?format=prometheus');
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  const families = parsePrometheusTextFormat(res.body) as Family[];
  for (const f of families) expect(f.type, f.name).toBe('GAUGE');
  return new Map(families.map((f) => [f.name, Number(f.metrics[0]!.value)]));
};

describe('GET /admin/metrics', () => {
  it('counts the redirects this process answered, as JSON and for Prometheus', async () => {
    const before = (await t.admin('GET', '/metrics')).json<{ clicks: { redirects: number } }>().clicks.redirects;
    const scrapedBefore = (await scrape()).get('linktrail_clicks_redirects')!;
    for (let i = 0; i < 3; i++) expect((await t.inject({ method: 'GET', url: shortPath })).statusCode).toBe(302);
    const json = (await t.admin('GET', '/metrics')).json<{ clicks: { redirects: number }; memory: { rssBytes: number } }>();
    expect(json.clicks.redirects).toBe(before + 3);
    const scraped = await scrape();
    expect(scraped.get('linktrail_clicks_redirects')).toBe(scrapedBefore + 3);
    expect(scraped.get('linktrail_memory_rss_bytes')).toBeGreaterThan(10_000_000);
    for (const name of ['linktrail_event_loop_delay_max_ms', 'linktrail_event_loop_delay_p99_ms', 'linktrail_clicks_queued', 'linktrail_clicks_written']) {
      expect(scraped.has(name), name).toBe(true);
    }
  });

  it("is the operator's: 401 without ADMIN_TOKEN, 400 on an unknown format", async () => {
    const res = await t.inject({ method: 'GET', url: '/admin/metrics?format=prometheus' });
    expect(res.statusCode).toBe(401);
    const bad = await t.admin('GET', '/metrics?format=xml');
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ error: { code: string } }>().error.code).toBeTruthy();
  });
});

describe('prometheusText', () => {
  it('names each number by its path and writes booleans as 0 or 1, skipping the rest', () => {
    const text = prometheusText({ clicks: { queued: 3, spoolBytes: 0 }, replica: { lagSeconds: NaN, analyticsReadsOnReplica: false }, note: 'x', list: [1] });
    expect(text).toBe(
      [
        '# TYPE linktrail_clicks_queued gauge',
        'linktrail_clicks_queued 3',
        '# TYPE linktrail_clicks_spool_bytes gauge',
        'linktrail_clicks_spool_bytes 0',
        '# TYPE linktrail_replica_lag_seconds gauge',
        'linktrail_replica_lag_seconds NaN',
        '# TYPE linktrail_replica_analytics_reads_on_replica gauge',
        'linktrail_replica_analytics_reads_on_replica 0',
        '',
      ].join('\n'),
    );
    expect((parsePrometheusTextFormat(text) as Family[]).map((f) => f.name)).toHaveLength(4);
  });

  it('makes names Prometheus accepts from any key', () => {
    for (const key of ['p99Ms', 'a-b', 'x.y', 'HTTPCode', 'é']) expect(metricName(['m', key])).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/);
  });
});
