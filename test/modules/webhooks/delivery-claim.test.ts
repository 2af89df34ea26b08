/**
 * The claim takes turns between workspaces (issue 41 M4): each workspace's first due delivery,
 * then each one's second, and so on, up to the free slots; a workspace gets no more than its
 * places left on this instance (perWorkspace minus its attempts in flight). Called directly on
 * a database of its own, with no delivery worker, so only these claims lease anything.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueDeliveries, type ClaimLimits } from '../../../src/modules/webhooks/store-delivery.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { dropFreshDatabases, freshDatabase } from '../../helpers/fresh-database.js';
import { NO_DELIVERY } from './helpers.js';
import { emit, seedEndpoint, START_MS } from './receiver.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ database: await freshDatabase(), env: NO_DELIVERY });
}, START_MS);
afterAll(async () => {
  await t?.close();
  await dropFreshDatabases();
});

/** Workspaces with `endpoints` endpoints and `events` events each (events × endpoints deliveries), queued in this order. */
async function queue(shape: { endpoints: number; events: number }[]): Promise<string[]> {
  const ids: string[] = [];
  for (const { endpoints, events } of shape) {
    const ws = (await t.workspace()).id;
    for (let i = 0; i < endpoints; i++) await seedEndpoint(t.database.db, ws, 'https://93.184.215.14/hooks');
    await emit(t.database.db, ws, events);
    ids.push(ws);
  }
  return ids;
}

const limits = (o: Partial<ClaimLimits>): ClaimLimits => ({ limit: 6, perEndpoint: 10, perWorkspace: 10, busy: new Map(), leaseMs: 15_000, ...o });

async function claimedPer(workspaces: string[], o: Partial<ClaimLimits>): Promise<number[]> {
  const claimed = await claimDueDeliveries(t.database.db, limits(o));
  return workspaces.map((ws) => claimed.filter((c) => c.workspaceId === ws).length);
}

/** Hands every lease back, so the next claim starts from the same queue. */
const release = () => t.database.db.execute(sql`UPDATE webhook_deliveries SET locked_until = NULL`);

describe('the claim of due deliveries', () => {
  it('takes turns: a workspace with a large backlog queued first does not take every slot', async () => {
    // A: 5 endpoints × 4 events (20 due, queued first); B: 1 × 3; C: 2 × 1.
    const [a, b, c] = await queue([
      { endpoints: 5, events: 4 },
      { endpoints: 1, events: 3 },
      { endpoints: 2, events: 1 },
    ]);
    for (let round = 0; round < 5; round++) {
      expect(await claimedPer([a!, b!, c!], { limit: 6 })).toEqual([2, 2, 2]);
      await release();
    }
    // Three slots: one each.
    expect(await claimedPer([a!, b!, c!], { limit: 3 })).toEqual([1, 1, 1]);
    await release();
    // A workspace at its share on this instance gets nothing; one with one place left gets one.
    expect(
      await claimedPer([a!, b!, c!], {
        limit: 6,
        perWorkspace: 2,
        busy: new Map([
          [a!, 2],
          [b!, 1],
        ]),
      }),
    ).toEqual([0, 1, 2]);
    await release();
    // With room for all, every due delivery is claimed, at most perEndpoint per endpoint.
    expect(await claimedPer([a!, b!, c!], { limit: 100, perEndpoint: 2 })).toEqual([10, 2, 2]);
    await release();
  });
});
