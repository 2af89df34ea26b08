/**
 * `npm run bench`: every scenario on a fresh PostgreSQL database (BENCH_PG's server, default
 * postgres://postgres@127.0.0.1:5432) and the local Redis (REDIS_URL, default
 * redis://127.0.0.1:6379), printed as tables. Figures go to BENCHMARKS.md.
 */
import pg from 'pg';
import { benchAnalytics } from './analytics.js';
import { benchClickEvents } from './click-events.js';
import { benchClientClick } from './client-click.js';
import { benchClickPartitions } from './click-partitions.js';
import { benchConversions } from './conversions.js';
import { benchConversionsPartner } from './conversions-partner.js';
import { benchPayouts } from './payouts.js';
import { benchDashboard } from './dashboard.js';
import { benchExport } from './export.js';
import { benchExportLatency } from './export-latency.js';
import { benchImport } from './import.js';
import { benchHeavyTenant } from './heavy-tenant.js';
import { benchHostile } from './hostile.js';
import { benchLinks } from './links.js';
import { benchLinksStats } from './links-stats.js';
import { benchMemory } from './memory.js';
import { benchPeople } from './people.js';
import { benchRedirect } from './redirect.js';
import { benchSoak } from './soak.js';
import { benchTags } from './tags.js';
import { benchTiming } from './timing.js';
import { benchWebhookBacklog } from './webhook-backlog.js';

const server = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
process.env.REDIS_URL ??= 'redis://127.0.0.1:6379';
const only = process.argv[2];

async function onFreshDatabase<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const dbName = `linktrail_bench_${name.replace(/[^a-z0-9]/g, '_')}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(server);
  url.pathname = `/${dbName}`;
  process.env.DATABASE_URL = url.href;
  try {
    return await fn();
  } finally {
    // BENCH_KEEP_DB: kept to look into afterwards (EXPLAIN on the data the scenario made).
    if (process.env.BENCH_KEEP_DB) console.log(`kept database ${dbName}`);
    else await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

const scenarios: [string, () => Promise<{ name: string; ms?: number; value?: string }[]>][] = [
  ['tags', () => benchTags()],
  ['links', () => benchLinks()],
  ['redirect', () => benchRedirect()],
  ['client-click', () => benchClientClick()],
  ['conversions', () => benchConversions()],
  ['conversions-partner', () => benchConversionsPartner(Number(process.env.CONVERSIONS_SECONDS ?? 5), Number(process.env.CONVERSIONS_ROUNDS ?? 3))],
  ['payouts', () => benchPayouts()],
  ['soak', () => benchSoak(Number(process.env.SOAK_SECONDS ?? 60))],
  ['memory', () => benchMemory()],
  ['hostile', () => benchHostile()],
  ['people', () => benchPeople()],
  ['partitions', () => benchClickPartitions()],
  ['click-events', () => benchClickEvents()],
  ['analytics', () => benchAnalytics()],
  ['dashboard', () => benchDashboard()],
  ['export', () => benchExport()],
  ['export-latency', () => benchExportLatency()],
  ['import', () => benchImport()],
  ['links-stats', () => benchLinksStats()],
  ['heavy-tenant', () => benchHeavyTenant()],
  ['timing', () => benchTiming()],
  ['webhook-backlog', () => benchWebhookBacklog()],
];

console.log(`Linktrail bench, ${new Date().toISOString()}, node ${process.version}`);
for (const [name, run] of scenarios) {
  if (only && only !== name) continue;
  const rows = await onFreshDatabase(name, run);
  console.log(`\n## ${name}`);
  console.table(rows);
}
