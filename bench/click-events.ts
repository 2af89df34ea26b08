/**
 * link.clicked (operations.md §11) on the click writer, on PostgreSQL: the production writer
 * (storeClicks with the outbox CTEs that runtime.ts hands it) storing CLICK_EVENTS_CLICKS clicks
 * in batches of 20,000 for a workspace with no endpoint and for one with an endpoint subscribed
 * to link.clicked, rounds alternating on one database. Reports clicks/s for each and the events
 * and deliveries written. CLICK_EVENTS_ROUNDS and CLICK_EVENTS_CLICKS change the sizes.
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { openPostgres, type Database } from '../src/db/connect.js';
import { migrate } from '../src/db/migrate.js';
import { ClickWebhooks } from '../src/modules/clicks/click-events.js';
import type { RawClick } from '../src/modules/clicks/record.js';
import { storeClicks } from '../src/modules/clicks/store.js';
import { clickOutboxCtes, workspacesWanting } from '../src/modules/webhooks/outbox.js';
import { traffic } from './click-partitions.js';

type Row = { name: string; ms?: number; value?: string };

const BATCH = 20_000;
const CLICKS = Number(process.env.CLICK_EVENTS_CLICKS ?? 200_000);
const ROUNDS = Number(process.env.CLICK_EVENTS_ROUNDS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function workspace(database: Database, subscribed: boolean): Promise<string> {
  const id = randomUUID();
  await database.withSession(async (s) => {
    await s.query(`INSERT INTO workspaces (id, name, plan) VALUES ($1, 'bench', 'pro')`, [id]);
    if (subscribed) {
      await s.query(
        `INSERT INTO webhook_endpoints (id, workspace_id, url, events, created_by, secret_sealed)
         VALUES ($1, $2, 'https://receiver.example/hook', '{link.clicked}', '{"type":"key","id":"bench"}', 'bench')`,
        [randomUUID(), id],
      );
    }
  });
  return id;
}

/** The writer as the click pipeline runs it: the batch's outbox CTEs, then one transaction. */
async function timeStore(database: Database, hooks: ClickWebhooks, clicks: RawClick[]): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < clicks.length; i += BATCH) {
    const batch = clicks.slice(i, i + BATCH);
    await storeClicks(database, batch, () => undefined, await hooks.outboxOf(batch));
  }
  return performance.now() - started;
}

export async function benchClickEvents(): Promise<Row[]> {
  if (!process.env.DATABASE_URL) throw new Error('benchClickEvents needs DATABASE_URL');
  const database = await openPostgres(process.env.DATABASE_URL, 4);
  try {
    await migrate(database);
    const hooks = new ClickWebhooks(
      { subscribedWorkspaces: () => workspacesWanting(database.db, 'link.clicked'), outboxCtes: clickOutboxCtes },
      () => undefined,
    );
    const plain = await workspace(database, false);
    const hooked = await workspace(database, true);
    const links = Array.from({ length: 500 }, () => randomUUID());
    const times = { plain: [] as number[], hooked: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      times.plain.push(await timeStore(database, hooks, traffic(plain, links, CLICKS)));
      times.hooked.push(await timeStore(database, hooks, traffic(hooked, links, CLICKS)));
    }
    const [counts] = await database.withSession((s) =>
      s.query<{ events: number; deliveries: number }>(
        `SELECT (SELECT count(*) FROM webhook_events)::int AS events, (SELECT count(*) FROM webhook_deliveries)::int AS deliveries`,
      ),
    );
    const rate = (ms: number) => `${Math.round(CLICKS / (ms / 1000)).toLocaleString('en')} clicks/s`;
    const row = (name: string, ms: number[]) => ({
      name: `${name}, median of ${ROUNDS}`,
      ms: Math.round(median(ms)),
      value: `${rate(median(ms))}; rounds ${ms.map(Math.round).join(', ')} ms`,
    });
    return [
      row(`storeClicks ${CLICKS.toLocaleString('en')} in batches of ${BATCH.toLocaleString('en')}, no endpoint`, times.plain),
      row(`the same, an endpoint subscribed to link.clicked`, times.hooked),
      { name: 'events / deliveries written', value: `${counts?.events.toLocaleString('en')} / ${counts?.deliveries.toLocaleString('en')}` },
    ];
  } finally {
    await database.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  console.table(await benchClickEvents());
}
